#pragma once
// Internal: the one decimal-number grammar shared by unit parsing and plain config numbers, so
// "1e", "nan", "0x10" and "1_000" are rejected the same way everywhere.
//   number := [+-]? (digits ["." digits*] | "." digits) [(e|E) [+-]? digits]
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace socsim::config::detail {

struct DecimalNumber {
  bool negative = false;
  std::string digits;     // all mantissa digits, decimal point removed ("1.50" -> "150")
  int fraction_digits = 0;  // how many of `digits` were after the point ("1.50" -> 2)
  std::int64_t exponent = 0;  // the written exponent, clamped to +-kMaxExponent
  std::size_t length = 0;   // characters of the input consumed by the number
};

// Exponents beyond this are clamped; any such value overflows or underflows anyway.
inline constexpr std::int64_t kMaxExponent = 100'000;

// Lexes a number at the start of `text`. Returns nullopt when `text` does not start with a
// well-formed number (including a dangling exponent such as "1e" or "1e+").
std::optional<DecimalNumber> lex_number(std::string_view text);

// Value of `n` times 10^extra_exponent, correctly rounded. nullopt on overflow/underflow.
std::optional<double> to_double(const DecimalNumber& n, std::int64_t extra_exponent = 0);

// The whole of `text` as a number / as a plain integer (no exponent, no point). nullopt when
// malformed, non-finite or (for integers) out of the int64 range.
std::optional<double> parse_double(std::string_view text);
std::optional<std::int64_t> parse_int64(std::string_view text);

}  // namespace socsim::config::detail
