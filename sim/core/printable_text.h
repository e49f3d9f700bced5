#pragma once
// Names from the inputs (a model file's stem, a workload's or a sweep's name) shown on a terminal
// or in an HTML page: a name holding ESC sequences set the terminal's title and cleared its screen
// when the summary printed it, and raw control or non-UTF-8 bytes made the HTML report invalid.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace socsim {

// The length of the well-formed UTF-8 sequence starting at `s[i]` (1-4), or 0 where none does
// (a stray continuation byte, a truncated or overlong sequence, a surrogate, past U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

// `s` for a terminal: control characters (C0, DEL) and bytes of no well-formed UTF-8 sequence
// as visible "\xNN" escapes; everything else as it is.
std::string printable(std::string_view s);

// The first control character (C0 or DEL) of `s`, if any: names given in input files are refused
// with it (a claim id, a workload's or a sweep's name), where printable() cannot help (a table's
// row, a CSV cell, a file's content).
std::optional<unsigned char> first_control_character(std::string_view s);

}  // namespace socsim
