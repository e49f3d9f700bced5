#pragma once
// The runs a sweep spec expands to: every case of `runs:` crossed with every combination of the
// grid, numbered in a fixed order (cases outer, grid axes in document order, the last fastest),
// so a run's number means the same thing on every machine and in every shard.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sweep/sweep_spec.h"

namespace socsim::sweep {

struct SweepRun {
  std::size_t index = 0;
  std::vector<Setting> settings;  // the case's and the grid's, in column order
  std::vector<std::string> args;  // `socsim run` arguments: base first, then the settings
  std::string label() const;      // "npu.tcm=4MiB npu.clock=1GHz"
};

// FNV-1a step (stable across platforms and runs, unlike std::hash), with a separator after `s`
// so ("ab", "c") and ("a", "bc") differ.
void fingerprint_mix(std::uint64_t& h, std::string_view s);

struct SweepPlan {
  std::vector<std::string> columns;  // the varied keys: case keys, then grid axes
  std::vector<SweepRun> runs;        // all of them, by index
  std::uint64_t fingerprint = 0;     // of every run's arguments (sweep_fingerprint adds the inputs' contents)
};

// Every run of the spec. More than kMaxSweepRuns is bad input (config::ConfigError at the grid).
inline constexpr std::uint64_t kMaxSweepRuns = 1'000'000;
SweepPlan expand_sweep(const SweepSpec& spec);
// The same under a host memory limit (--max-host-memory; 0 = none): every run's settings are kept
// for the sweep (a million runs of a short spec took 0.9 GB under a 300 MiB limit), so past the
// limit it stops with config::ConfigError naming --max-host-memory.
SweepPlan expand_sweep(const SweepSpec& spec, std::uint64_t host_memory_limit);

// `--shard I/N` (0 <= I < N): one of N parts of the runs, balanced by estimated cost. Striding
// (run index modulo N) gave every shard one value of the last axis when N divided its length, and
// shards differed in cost by 20x; instead the runs go, most expensive first, to the shard with the
// least cost so far (ties: the lower shard), so every shard computes the same assignment.
struct Shard {
  std::size_t index = 0, count = 1;
};
Shard parse_shard(const std::string& text);  // throws config::ConfigError naming --shard
// `cost[i]` is run i's estimated cost (any unit; sweep_run_costs in the CLI estimates simulator
// work); runs of the shard in index order.
std::vector<const SweepRun*> shard_runs(const SweepPlan& plan, Shard shard, const std::vector<double>& cost);
// The shard each run belongs to (same rule).
std::vector<std::size_t> assign_shards(const std::vector<double>& cost, std::size_t shards);

}  // namespace socsim::sweep
