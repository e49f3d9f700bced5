#include "sim/config/number_syntax.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace socsim::config::detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads a run of digits starting at `pos` into `out`; returns how many were read.
std::size_t take_digits(std::string_view text, std::size_t pos, std::string* out) {
  std::size_t n = 0;
  while (pos + n < text.size() && is_digit(text[pos + n])) {
    if (out != nullptr) out->push_back(text[pos + n]);
    ++n;
  }
  return n;
}

}  // namespace

std::optional<DecimalNumber> lex_number(std::string_view text) {
  DecimalNumber n;
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    n.negative = text[pos] == '-';
    ++pos;
  }
  const std::size_t int_digits = take_digits(text, pos, &n.digits);
  pos += int_digits;
  std::size_t frac_digits = 0;
  if (pos < text.size() && text[pos] == '.') {
    frac_digits = take_digits(text, pos + 1, &n.digits);
    // A lone "." or "-." is not a number.
    if (int_digits == 0 && frac_digits == 0) return std::nullopt;
    pos += 1 + frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return std::nullopt;
  n.fraction_digits = static_cast<int>(frac_digits);

  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    std::size_t p = pos + 1;
    bool exp_negative = false;
    if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
      exp_negative = text[p] == '-';
      ++p;
    }
    std::string exp_digits;
    const std::size_t count = take_digits(text, p, &exp_digits);
    // "1e" and "1e+" are malformed rather than "1" followed by a unit; but a letter right after
    // the E starts a unit ("1EiB", "2EB": exabytes), not an exponent.
    if (count == 0) {
      const bool unit_follows = p == pos + 1 && p < text.size() && std::isalpha(static_cast<unsigned char>(text[p])) != 0;
      if (!unit_follows) return std::nullopt;
      n.length = pos;
      return n;
    }
    std::int64_t e = 0;
    for (char c : exp_digits) {
      e = e * 10 + (c - '0');
      if (e > kMaxExponent) {
        e = kMaxExponent;
        break;
      }
    }
    n.exponent = exp_negative ? -e : e;
    pos = p + count;
  }
  n.length = pos;
  return n;
}

std::optional<double> to_double(const DecimalNumber& n, std::int64_t extra_exponent) {
  // Re-spell the number as "<digits>e<exp>" and let from_chars do the correctly rounded
  // conversion; multiplying by 1e-9 afterwards would add a second rounding.
  const std::int64_t exp = n.exponent + extra_exponent - n.fraction_digits;
  std::string spelled = (n.negative ? "-" : "") + n.digits + "e" + std::to_string(exp);
  double value = 0.0;
  const char* first = spelled.data();
  const char* last = first + spelled.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports underflow the same way as overflow; a value that is exactly zero
    // ("0e-999") is fine, anything else that small is not meaningful in a configuration.
    if (n.digits.find_first_not_of('0') == std::string::npos) return n.negative ? -0.0 : 0.0;
    return std::nullopt;
  }
  if (ec != std::errc() || ptr != last || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  const auto n = lex_number(text);
  if (!n || n->length != text.size()) return std::nullopt;
  return to_double(*n);
}

std::optional<std::int64_t> parse_int64(std::string_view text) {
  const auto n = lex_number(text);
  if (!n || n->length != text.size() || n->fraction_digits != 0 ||
      text.find_first_of(".eE") != std::string_view::npos) {
    return std::nullopt;
  }
  // from_chars rejects a leading '+', which the grammar allows.
  std::string_view body = text;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (ec != std::errc() || ptr != body.data() + body.size()) return std::nullopt;
  return value;
}

}  // namespace socsim::config::detail
