#pragma once
// What a sweep's results depend on, as one number (results.json's `fingerprint`): every run's
// arguments, the contents of every input file they name (the spec; each SoC file with its
// includes; each workload file with its includes; each model and functional-weights file; every
// file a --set value names; files read by default for a model:
// models/shadowattn/<id>.importance.json) and socsim's version. `sweep merge`
// refuses shards whose fingerprints differ, and `sweep --resume` a journal whose does: results
// simulated from other file contents or another simulator are never mixed.
#include <cstdint>

#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_spec.h"

namespace socsim::cli {

// Files that cannot be read are config::ConfigError (exit 2), as in `socsim run`.
std::uint64_t sweep_fingerprint(const sweep::SweepSpec& spec, const sweep::SweepPlan& plan);

}  // namespace socsim::cli
