#pragma once
// Common shape of every microbench's JSON: what ran, its latency, and per-unit activity.
#include <nlohmann/json.hpp>

#include "sim/core/simulator.h"
#include "sim/hw/soc.h"
#include "sim/runtime/microbench/microbench.h"

namespace socsim::runtime {

// Echo of the request and latency keys (latency_ms, latency_us).
nlohmann::ordered_json microbench_header(const MicrobenchRequest& r, Tick latency);
// units.{npu,dram} busy times and DRAM traffic.
nlohmann::ordered_json unit_breakdown(hw::Soc& soc);

}  // namespace socsim::runtime
