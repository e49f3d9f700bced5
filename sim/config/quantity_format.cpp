#include "sim/config/quantity_format.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "sim/config/unit_table.h"

namespace socsim::config::detail {
namespace {

// value/multiplier rarely divides exactly in binary floating point (1.5e-9 / 1e-9), so
// "integral" allows a relative error far below anything a config would state.
bool near_integer(double v) {
  return std::fabs(v - std::round(v)) <= 1e-9 * std::max(1.0, std::fabs(v));
}

}  // namespace

std::string format_number(double value) {
  // 12 significant digits hides the division noise above but keeps realistic precision.
  return fmt::format("{:.12g}", value);
}

std::string format_quantity(double si_value, Quantity q) {
  const auto units = units_for(q);
  if (units.empty()) return format_number(si_value);
  // Engineering style: the largest decimal unit that keeps the value >= 1 ("2.5 GHz",
  // "1.5 ns"). A binary unit is used only where it gives a whole number and the decimal one
  // does not, so "1 GiB" is not printed as "1.073741824 GB".
  const double magnitude = std::fabs(si_value);
  const UnitDef* decimal = nullptr;
  const UnitDef* binary = nullptr;
  for (const UnitDef& u : units) {
    if (!u.display) continue;
    const double m = multiplier(u);
    const bool fits = magnitude / m >= 1.0 - 1e-9;
    if (u.factor == 1.0) {
      // Tables are ordered small to large: keep the smallest, then every one that fits.
      if (decimal == nullptr || fits) decimal = &u;
    } else if (fits && near_integer(magnitude / m) &&
               (binary == nullptr || m > multiplier(*binary))) {
      binary = &u;
    }
  }
  const UnitDef* chosen = decimal;
  if (binary != nullptr && !near_integer(magnitude / multiplier(*decimal))) chosen = binary;
  const double v = si_value / multiplier(*chosen);
  return format_number(near_integer(v) ? std::round(v) : v) + " " + std::string(chosen->name);
}

}  // namespace socsim::config::detail
