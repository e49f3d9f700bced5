#pragma once
// Power and energy parameters (`power:` section). Energy = sum over units of active power x busy
// time (CPU cores: stalled power for the part of it they waited on DRAM) + idle power x idle time + per-byte DRAM and storage energy (DESIGN.md 1.1).
#include <map>
#include <string>

#include "sim/config/config_tree.h"

namespace socsim::hw {

struct ActiveIdle {
  double active_w = 0;
  double idle_w = 0;
  // CPU cores only: power of a core that is busy but waiting on DRAM (its compute for the task
  // done, its memory stream not). A stalled core still clocks its front end, caches and the
  // load/store path, but its execution units idle; per-operation power models put core power
  // as a clock-driven floor plus a part that grows with operations per cycle (e.g. Wang and
  // Zwolinski's ARM11 instruction-level model). Negative: the same as active_w (a SoC file that
  // omits it, or a spec built in code); read it through stalled().
  double stalled_w = -1;
  double stalled() const { return stalled_w < 0 ? active_w : stalled_w; }
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
