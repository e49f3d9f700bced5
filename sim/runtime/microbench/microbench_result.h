#pragma once
// Common shape of every microbench's JSON: what ran, its latency, and per-unit activity.
#include <functional>

#include <nlohmann/json.hpp>

#include "sim/core/simulator.h"
#include "sim/hw/soc.h"
#include "sim/runtime/microbench/microbench.h"

namespace socsim::runtime {

// Echo of the request and latency keys (latency_ms, latency_us).
nlohmann::ordered_json microbench_header(const MicrobenchRequest& r, Tick latency);
// units.{npu,gpu,dram} busy times and DRAM traffic.
nlohmann::ordered_json unit_breakdown(hw::Soc& soc);

// The common shape of a microbenchmark: a fresh SoC, one process made by `body` run to the end,
// then the header (latency) and the unit breakdown. `per_second` (work / latency / 1e9) is added
// under `rate_key` ("gflops", "gbps") when rate_key is given.
nlohmann::ordered_json time_on_soc(const MicrobenchRequest& r, const std::function<Task<>(hw::Soc&)>& body,
                                   const char* rate_key = nullptr, double work = 0);

}  // namespace socsim::runtime
