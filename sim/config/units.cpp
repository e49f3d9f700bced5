#include "sim/config/units.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "sim/config/config_node.h"
#include "sim/config/number_syntax.h"
#include "sim/config/unit_table.h"

namespace socsim::config {
namespace {

using detail::DecimalNumber;
using detail::UnitDef;

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// `expected a bandwidth such as "68 GB/s" (units: B/s kB/s ...), got "<text>"<detail>`.
// Every syntax problem starts the same way so callers can rely on the prefix.
[[noreturn]] void fail(Quantity q, std::string_view text, std::string_view detail = {}) {
  std::string msg = "expected ";
  msg += detail::article_for(q);
  msg += " ";
  msg += quantity_name(q);
  msg += " such as \"";
  msg += detail::example_for(q);
  msg += "\"";
  const auto units = detail::units_for(q);
  if (!units.empty()) {
    msg += " (units:";
    for (const UnitDef& u : units) {
      msg += " ";
      msg += u.name;
    }
    msg += ")";
  }
  msg += ", got \"";
  msg += detail::echoed(std::string(text));
  msg += "\"";
  if (!detail.empty()) {
    msg += " (";
    msg += detail;
    msg += ")";
  }
  throw std::invalid_argument(msg);
}

struct Parsed {
  DecimalNumber number;
  const UnitDef* unit = nullptr;  // null only for Quantity::kNumber
};

// Splits "<number>[ ]<unit>" and validates both parts; the number is not yet converted.
Parsed split(std::string_view original, Quantity q) {
  const std::string_view text = trim(original);
  const auto number = detail::lex_number(text);
  if (!number) fail(q, original);
  // The space between number and unit is optional: "68GB/s" and "68 GB/s" are the same.
  const std::string_view rest = trim(text.substr(number->length));
  const auto units = detail::units_for(q);
  Parsed parsed{*number, nullptr};
  if (units.empty()) {
    if (!rest.empty()) fail(q, original, "unexpected text \"" + std::string(rest) + "\"");
  } else {
    if (rest.empty()) fail(q, original, "missing unit");
    for (const UnitDef& u : units) {
      if (u.name == rest) parsed.unit = &u;
    }
    // Exact match only: "68 GB/sx" or "68 gb/s" must not be read as something else.
    if (parsed.unit == nullptr) {
      fail(q, original, "unknown unit \"" + std::string(rest) + "\"");
    }
  }
  if (parsed.number.negative && q != Quantity::kNumber) {
    fail(q, original, "must not be negative");
  }
  return parsed;
}

// Rounds the non-negative decimal `digits` * 10^scale to the nearest integer (halves up).
// Works on the digit string so no precision is lost before the final uint64 conversion.
std::optional<Tick> scaled_integer(const std::string& digits, std::int64_t scale) {
  std::string integer_part;
  bool round_up = false;
  if (scale >= 0) {
    // More than 20 significant digits cannot fit in a uint64 anyway; avoid huge strings.
    const std::size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) return Tick{0};
    if (static_cast<std::int64_t>(digits.size() - first) + scale > 20) return std::nullopt;
    integer_part = digits.substr(first) + std::string(static_cast<std::size_t>(scale), '0');
  } else {
    const std::int64_t drop = -scale;
    const auto size = static_cast<std::int64_t>(digits.size());
    if (drop > size) return Tick{0};  // below half a picosecond
    integer_part = digits.substr(0, static_cast<std::size_t>(size - drop));
    round_up = digits[static_cast<std::size_t>(size - drop)] >= '5';
  }
  Tick value = 0;
  constexpr Tick kMax = std::numeric_limits<Tick>::max();
  for (char c : integer_part) {
    const auto d = static_cast<Tick>(c - '0');
    if (value > (kMax - d) / 10) return std::nullopt;
    value = value * 10 + d;
  }
  if (round_up) {
    if (value == kMax) return std::nullopt;
    ++value;
  }
  return value;
}

}  // namespace

std::string_view quantity_name(Quantity q) {
  switch (q) {
    case Quantity::kTime: return "time";
    case Quantity::kFrequency: return "frequency";
    case Quantity::kBandwidth: return "bandwidth";
    case Quantity::kSize: return "size";
    case Quantity::kPower: return "power";
    case Quantity::kEnergy: return "energy";
    case Quantity::kEnergyPerByte: return "energy per byte";
    case Quantity::kNumber: return "number";
  }
  return "unknown quantity";
}

double parse_quantity(std::string_view text, Quantity q) {
  const Parsed p = split(text, q);
  const std::int32_t exp10 = p.unit != nullptr ? p.unit->decimal_exponent : 0;
  const auto value = detail::to_double(p.number, exp10);
  if (!value) fail(q, text, "out of range");
  // Binary prefixes and the x8 of per-bit units are powers of two: exact in double.
  return p.unit != nullptr ? *value * p.unit->factor : *value;
}

Tick parse_time_ticks(std::string_view text) {
  const Parsed p = split(text, Quantity::kTime);
  // ps = digits * 10^(exponent - fraction_digits + unit_exponent + 12)
  const std::int64_t scale =
      p.number.exponent - p.number.fraction_digits + p.unit->decimal_exponent + 12;
  const auto ticks = scaled_integer(p.number.digits, scale);
  if (!ticks) fail(Quantity::kTime, text, "does not fit in 64-bit picoseconds");
  return *ticks;
}

void check_byte_count(double v, std::string_view text) {
  if (v >= 18446744073709551616.0) {
    throw std::invalid_argument("must be less than 16 EiB (a 64-bit byte count), got " + detail::echoed(std::string(text)));
  }
  if (v != static_cast<double>(static_cast<std::uint64_t>(v < 0 ? -v : v)) * (v < 0 ? -1 : 1)) {
    throw std::invalid_argument("expected a whole number of bytes, got " + detail::echoed(std::string(text)));
  }
}

}  // namespace socsim::config
