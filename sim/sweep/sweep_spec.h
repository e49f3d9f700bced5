#pragma once
// A sweep specification (workloads/sweeps/*.yaml): the options every run shares, the axes of a
// grid whose every combination is one run, optional explicit run cases, and the metrics that
// become the CSV's columns. Loaded into plain data with each value's file:line, so a run that
// turns out to be bad can be blamed on the line that produced it.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/config_error.h"

namespace socsim::sweep {

// One setting of a run: `soc: snapdragon-8gen3` or `npu.tcm: 4MiB`. Keys that are `socsim run`
// options (soc, model, system, workload, prompt, decode, batch, mode, seed) become `--key value`;
// any other key is a parameter and becomes `--set key=value`.
struct Setting {
  std::string key, value;
  config::SourceLocation location;
};

struct Axis {
  std::string key;
  config::SourceLocation location;
  std::vector<Setting> values;  // each with its own line
};

struct SweepSpec {
  std::string file, name;
  std::vector<Setting> base;                // shared by every run, document order
  std::vector<std::vector<Setting>> cases;  // `runs:`, each crossed with the grid; empty: one empty case
  std::vector<Axis> grid;                   // document order; the last axis varies fastest
  std::vector<std::string> metrics;         // dotted paths into the run's JSON report
  std::vector<config::SourceLocation> metric_locations;  // empty when the defaults are used
};

// Throws config::ConfigError naming file:line and key for anything malformed or unknown.
SweepSpec load_sweep_spec(const std::filesystem::path& file);

// The command-line arguments of one setting.
std::vector<std::string> setting_args(const Setting& s);

// A value as two spellings of it compare ("8" and "08", "8MiB" and "8192KiB", "[1.0, 0.9]" and
// "[1, 0.90]"): what the spec's duplicate checks compare.
std::string canonical_setting_value(const std::string& text);

// Metrics written when the spec names none: the contract's report keys.
const std::vector<std::string>& default_metrics();

}  // namespace socsim::sweep
