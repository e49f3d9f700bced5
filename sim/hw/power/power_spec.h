#pragma once
// Power and energy parameters (`power:` section). Energy = sum over units of active power x busy
// time + idle power x idle time + per-byte DRAM and storage energy (DESIGN.md 1.1).
#include <map>
#include <string>

#include "sim/config/config_tree.h"

namespace socsim::hw {

struct ActiveIdle {
  double active_w = 0;
  double idle_w = 0;
};

struct PowerSpec {
  ActiveIdle npu;
  ActiveIdle gpu;
  std::map<std::string, ActiveIdle> cpu_core;  // per core, by cluster name
  double dram_energy_per_byte = 0;             // J/B
  double dram_background_w = 0;
  double storage_read_energy_per_byte = 0;
  double storage_write_energy_per_byte = 0;
  double storage_idle_w = 0;
  double soc_base_w = 0;  // always-on rest of the SoC (interconnect, caches) during a run
};

PowerSpec parse_power_spec(const config::Section& s);

}  // namespace socsim::hw
