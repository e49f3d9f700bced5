#pragma once
// Shared LPDDR (`dram:` section of a SoC file).
#include <cstdint>
#include <vector>

#include "sim/config/config_tree.h"

namespace socsim::hw {

struct DramSpec {
  double peak_bandwidth = 0;                // achievable SoC peak, bytes/s
  std::vector<double> concurrency_efficiency;  // fraction of peak with 1, 2, ... masters streaming
  std::uint64_t capacity_bytes = 0;         // physical RAM of the phone
};

DramSpec parse_dram_spec(const config::Section& s);

}  // namespace socsim::hw
