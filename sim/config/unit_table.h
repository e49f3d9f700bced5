#pragma once
// Internal: the accepted units of each Quantity. Kept as data, apart from the parser, so the
// error message ("units: ...") and the range formatter can never disagree with what is parsed.
#include <cstdint>
#include <span>
#include <string_view>

#include "sim/config/units.h"

namespace socsim::config::detail {

struct UnitDef {
  std::string_view name;      // exactly as written in configs; case-sensitive ("MB" != "mB")
  std::int32_t decimal_exponent;  // value in base units = number * 10^decimal_exponent * factor
  double factor;              // powers of 1024 for binary prefixes, 8 for per-bit units
  bool display;               // whether messages may print values in this unit
};

// Empty for Quantity::kNumber.
std::span<const UnitDef> units_for(Quantity q);

// A typical value for messages: "68 GB/s", "400 us", ...
std::string_view example_for(Quantity q);

// "a" or "an", for "expected an energy ...".
std::string_view article_for(Quantity q);

// 10^decimal_exponent * factor.
double multiplier(const UnitDef& u);

}  // namespace socsim::config::detail
