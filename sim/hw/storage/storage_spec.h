#pragma once
// UFS-class flash storage (`storage:` section): used for KV-cache swapping and cold weights.
#include "sim/config/config_tree.h"
#include "sim/core/time.h"

namespace socsim::hw {

struct StorageSpec {
  double read_bandwidth = 0;   // sequential, bytes/s
  double write_bandwidth = 0;
  Tick read_latency = 0;       // per request
  Tick write_latency = 0;
};

StorageSpec parse_storage_spec(const config::Section& s);

}  // namespace socsim::hw
