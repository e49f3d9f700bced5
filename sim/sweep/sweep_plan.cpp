#include "sim/sweep/sweep_plan.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "sim/config/config_error.h"
#include "sim/core/host_memory.h"

namespace socsim::sweep {

namespace {

void add_column(std::vector<std::string>& columns, const std::string& key) {
  if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
}

}  // namespace

void fingerprint_mix(std::uint64_t& h, std::string_view s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  h = (h ^ 0xff) * 1099511628211ULL;  // separator, so ("ab","c") != ("a","bc")
}

std::string SweepRun::label() const {
  std::string s;
  for (const auto& st : settings) s += (s.empty() ? "" : " ") + st.key + "=" + st.value;
  return s;
}

namespace {

std::uint64_t string_bytes(const std::string& t) { return sizeof(std::string) + string_heap_bytes(t); }

// Host bytes a run holds (its settings and arguments), for the host memory guard.
std::uint64_t held_bytes(const SweepRun& run) {
  std::uint64_t bytes = sizeof(SweepRun);
  for (const auto& a : run.args) bytes += string_bytes(a);
  for (const auto& st : run.settings) bytes += sizeof(Setting) - 2 * sizeof(std::string) + string_bytes(st.key) + string_bytes(st.value);
  return bytes;
}

}  // namespace

SweepPlan expand_sweep(const SweepSpec& spec) {
  SweepPlan plan;
  std::vector<std::vector<Setting>> cases = spec.cases;
  if (cases.empty()) cases.emplace_back();
  // A grid is a product: a few long axes make billions of runs. Refuse before allocating them
  // (found by fuzz_sweep_spec: std::bad_alloc, exit 1, instead of a message naming the grid).
  std::uint64_t total = cases.size();
  for (const auto& axis : spec.grid) {
    const std::uint64_t n = axis.values.size();
    if (n != 0 && total > kMaxSweepRuns / n) total = kMaxSweepRuns + 1;
    else total *= n;
  }
  if (total > kMaxSweepRuns) {
    const config::SourceLocation where = spec.grid.empty() ? config::SourceLocation{spec.file, 0, 0} : spec.grid.front().location;
    throw config::ConfigError(where, "grid",
                              "expands to more than " + std::to_string(kMaxSweepRuns) +
                                  " runs (cases x the product of the axes' lengths); split the study into several specs");
  }
  for (const auto& c : cases) {
    for (const auto& s : c) add_column(plan.columns, s.key);
  }
  for (const auto& axis : spec.grid) add_column(plan.columns, axis.key);

  std::vector<std::string> base_args;
  for (const auto& b : spec.base) {
    for (auto& a : setting_args(b)) base_args.push_back(std::move(a));
  }
  std::uint64_t h = 1469598103934665603ULL;
  for (const auto& c : cases) {
    // Odometer over the grid: digit i picks a value of axis i, the last axis turns fastest.
    std::vector<std::size_t> digit(spec.grid.size(), 0);
    while (true) {
      SweepRun run;
      run.index = plan.runs.size();
      run.settings = c;
      for (std::size_t i = 0; i < spec.grid.size(); ++i) run.settings.push_back(spec.grid[i].values[digit[i]]);
      run.args = base_args;
      for (const auto& s : run.settings) {
        for (auto& a : setting_args(s)) run.args.push_back(std::move(a));
      }
      for (const auto& a : run.args) fingerprint_mix(h, a);
      fingerprint_mix(h, "\n");
      // Each run's strings are kept for the whole sweep: a million runs of a long base are
      // gigabytes, counted towards the caller's host memory limit (--max-host-memory).
      note_host_growth(held_bytes(run));
      plan.runs.push_back(std::move(run));
      std::size_t i = spec.grid.size();
      while (i > 0 && ++digit[i - 1] == spec.grid[i - 1].values.size()) digit[--i] = 0;
      if (i == 0) break;
    }
  }
  plan.fingerprint = h;
  return plan;
}

SweepPlan expand_sweep(const SweepSpec& spec, std::uint64_t host_memory_limit) {
  try {
    const ScopedHostMemoryLimit limit(host_memory_limit);
    return expand_sweep(spec);
  } catch (const HostMemoryExceeded& e) {
    throw config::ConfigError({spec.file, 0, 0}, "--max-host-memory",
                              std::string(e.what()) + " while expanding the grid (every run's settings are kept for the sweep); " +
                                  "split the study into several specs or raise --max-host-memory");
  }
}

Shard parse_shard(const std::string& text) {
  const auto fail = [&] {
    throw config::ConfigError({"command line", 0, 0}, "--shard", "expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) fail();
  Shard s;
  const char* end = text.data() + text.size();
  auto r1 = std::from_chars(text.data(), text.data() + slash, s.index);
  auto r2 = std::from_chars(text.data() + slash + 1, end, s.count);
  if (r1.ec != std::errc() || r1.ptr != text.data() + slash || r2.ec != std::errc() || r2.ptr != end) fail();
  if (s.count == 0 || s.index >= s.count) fail();
  return s;
}

std::vector<std::size_t> assign_shards(const std::vector<double>& cost, std::size_t shards) {
  std::vector<std::size_t> order(cost.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Most expensive first; equal costs in run order (a stable, platform-independent order).
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  std::vector<double> load(std::max<std::size_t>(shards, 1), 0.0);
  std::vector<std::size_t> shard_of(cost.size(), 0);
  for (const std::size_t i : order) {
    const std::size_t s = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shard_of[i] = s;
    load[s] += cost[i];
  }
  return shard_of;
}

std::vector<const SweepRun*> shard_runs(const SweepPlan& plan, Shard shard, const std::vector<double>& cost) {
  if (cost.size() != plan.runs.size()) throw std::logic_error("shard_runs: one cost per run expected");
  const auto shard_of = assign_shards(cost, shard.count);
  std::vector<const SweepRun*> out;
  for (const auto& r : plan.runs) {
    if (shard_of[r.index] == shard.index) out.push_back(&r);
  }
  return out;
}

}  // namespace socsim::sweep
