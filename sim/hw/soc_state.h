#pragma once
// A one-screen description of what every unit of a SoC is doing right now, for the watchdog's
// report when a run stops making progress (sim/runtime/watchdog_report.h).
#include <string>

#include "sim/hw/soc.h"

namespace socsim::hw {

std::string describe_units(Soc& soc);

}  // namespace socsim::hw
