#pragma once
// Whether configuration text is UTF-8: YAML (yaml-cpp reads other bytes as Latin-1 or drops them)
// and JSON (nlohmann echoes a stray byte raw to the terminal) inputs say which byte is not.
#include <cstddef>
#include <optional>
#include <string_view>

namespace socsim::config::detail {

// The first byte sequence that is not UTF-8 (overlong forms, surrogates and code points past
// U+10FFFF included), as its offset; nullopt when the text is UTF-8 throughout.
std::optional<std::size_t> first_non_utf8(std::string_view text);

}  // namespace socsim::config::detail
