#pragma once
// Internal: prints an SI value back in a unit a person would write, for range messages such as
// "must be in [1 GB/s, 100 GB/s]" (printing "1e+09" would make the user do the conversion).
#include <string>

#include "sim/config/units.h"

namespace socsim::config::detail {

// 68e9, kBandwidth -> "68 GB/s"; 1073741824, kSize -> "1 GiB"; kNumber -> plain number.
std::string format_quantity(double si_value, Quantity q);

// Shortest readable spelling of a plain number ("1.5", "1000", "1e+20").
std::string format_number(double value);

}  // namespace socsim::config::detail
