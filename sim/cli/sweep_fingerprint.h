#pragma once
// What a sweep's results depend on, as one number (results.json's `fingerprint`): every run's
// arguments, the spec's name and metrics (not its comments or layout: a reformatted spec resumes),
// the contents of every input file the runs name (each SoC and workload file with its includes;
// each model and functional-weights file; every file a --set value names; files read by default
// for a model: models/shadowattn/<id>.importance.json) and socsim's version. `sweep merge`
// refuses shards whose fingerprints differ, and `sweep --resume` a journal whose does: results
// simulated from other file contents or another simulator are never mixed. The journal keeps
// each part's own hash, so a refused resume names the parts that changed.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_spec.h"

namespace socsim::cli {

// The parts, in a fixed order, each (what it is, its hash as hex; socsim's version as itself):
// ("socsim version", "0.9.0"), ("the runs' arguments", ...), ("the spec's name and metrics", ...),
// ("--soc snapdragon-8gen3 (with its includes)", ...), ("--workload w.yaml (with its includes)",
// ...), ("the file f.json (a --set value)", ...). No part names where a file was found, so
// checkouts and nodes at other paths agree.
struct SweepInputs {
  std::uint64_t fingerprint = 0;  // of all the parts
  std::vector<std::pair<std::string, std::string>> parts;
};

// Files that cannot be read are config::ConfigError (exit 2), as in `socsim run`.
SweepInputs sweep_inputs_of(const sweep::SweepSpec& spec, const sweep::SweepPlan& plan);
inline std::uint64_t sweep_fingerprint(const sweep::SweepSpec& spec, const sweep::SweepPlan& plan) { return sweep_inputs_of(spec, plan).fingerprint; }

}  // namespace socsim::cli
