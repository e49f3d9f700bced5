#pragma once
// What each run of a sweep costs the simulator, estimated from its options alone, so `--shard`
// can balance the shards (sweep_plan.h). A run plans and executes jobs per decoder layer per
// prefill chunk and per decode step, so its work grows as layers x (prompt / 256 + decode + 1),
// summed over a workload's requests; functional mode computes the arithmetic too (about 10x).
// Only the ratios between runs matter.
#include <vector>

#include "sim/sweep/sweep_plan.h"

namespace socsim::cli {

// One cost per run of `plan`, by index. Inputs that cannot be read are config::ConfigError.
std::vector<double> sweep_run_costs(const sweep::SweepPlan& plan);

}  // namespace socsim::cli
