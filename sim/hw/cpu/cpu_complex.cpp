#include "sim/hw/cpu/cpu_complex.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <boost/container/small_vector.hpp>

namespace socsim::hw {

CpuComplex::CpuComplex(Simulator& sim, const CpuSpec& spec, DramModel& dram, PortId cpu_port,
                       report::TraceRecorder* trace)
    : sim_(sim), spec_(spec), dram_(dram), trace_(trace) {
  for (const auto& c : spec_.clusters) clusters_.push_back(std::make_shared<CpuCluster>(sim, c, dram, cpu_port));
}

std::shared_ptr<CpuCluster> CpuComplex::find(std::string_view cluster) const {
  for (const auto& c : clusters_) {
    if (c->name() == cluster) return c;
  }
  std::string known;
  for (const auto& c : clusters_) known += (known.empty() ? "" : ", ") + c->name();
  throw std::invalid_argument("no CPU cluster named '" + std::string(cluster) + "' (known: " + known + ")");
}

std::string CpuComplex::track(const CpuCluster& c, std::uint32_t core) const {
  return "cpu." + c.name() + std::to_string(core);
}

Task<> CpuComplex::run(const CpuTask& t, std::string_view cluster, std::uint32_t threads, Tick* stalled) {
  auto c = find(cluster);
  if (threads == 0 || threads > c->spec().cores) {
    throw std::invalid_argument("CPU task '" + t.name + "': " + std::to_string(threads) +
                                " threads requested on cluster '" + c->name() + "', which has " +
                                std::to_string(c->spec().cores) + " cores");
  }
  if (!(t.ops >= 0) || !std::isfinite(t.ops)) {
    throw std::invalid_argument("CPU task '" + t.name + "': ops must be finite and >= 0");
  }
  if (t.max_threads > 0) threads = std::min(threads, t.max_threads);
  return run_on(t, std::move(c), threads, stalled);
}

Task<> CpuComplex::run_on(CpuTask t, std::shared_ptr<CpuCluster> c, std::uint32_t threads, Tick* stalled) {
  Lease lease = co_await c->cores().acquire(threads);
  const bool cold = c->idle_for_at_least(spec_.idle_threshold);
  CoreGrant grant(c, std::move(lease), threads);
  const Tick start = sim_.now();
  const Tick wakeup = cold ? spec_.idle_wakeup : 0;  // not inside co_await (lint-coawait-ternary)
  co_await sim_.delay(wakeup + spec_.task_dispatch);
  const std::uint64_t cycles =
      compute_cycles_per_thread(padded_ops(t, spec_.gemm_tile_rows), task_ops_per_cycle(c->spec(), t), threads);
  const Tick compute = c->clock().cycles_to_ticks(cycles);
  // Even split of the bytes; the first (bytes % threads) threads move one byte more.
  const std::uint64_t base = t.dram_bytes / threads, extra = t.dram_bytes % threads;
  if (threads == 1) {
    co_await core_part(*c, grant.cores()[0], compute, t.dram_bytes, t.name, stalled);
  } else {
    TaskList parts;
    for (std::uint32_t i = 0; i < threads; ++i) {
      parts.push_back(core_part(*c, grant.cores()[i], compute, base + (i < extra ? 1 : 0), t.name, stalled));
    }
    co_await when_all(sim_, std::move(parts));
  }
  if (report::tracing_hardware(trace_)) {
    // Dispatch shows on the first core's track: it is the thread that wakes the others.
    if (spec_.task_dispatch > 0) {
      trace_->hardware_span(track(*c, grant.cores()[0]), "dispatch", start, start + spec_.task_dispatch);
    }
  }
  c->add_ops(t.ops);
}

Task<> CpuComplex::core_part(CpuCluster& c, std::uint32_t core, Tick compute, std::uint64_t bytes,
                             std::string_view name, Tick* stalled) {
  // Compute and the DRAM stream overlap (prefetching SIMD loops): the thread ends at the later.
  const Tick start = sim_.now();
  const Tick compute_end = sim_.checked_add(start, compute);
  co_await dram_.transfer(c.core_port(core), bytes);
  if (sim_.now() > compute_end) {
    const Tick waited = sim_.now() - compute_end;
    c.add_stalled(waited);
    if (stalled) *stalled += waited;
  }
  co_await sim_.delay_until(compute_end);
  if (report::tracing_hardware(trace_)) trace_->hardware_span(track(c, core), std::string(name), start, sim_.now());
}

Task<> CpuComplex::run_on_fastest(const CpuTask& t, std::uint32_t threads, Tick* stalled) {
  std::uint32_t total = 0;
  for (const auto& c : clusters_) total += c->spec().cores;
  if (threads == 0 || threads > total) {
    throw std::invalid_argument("CPU task '" + t.name + "': " + std::to_string(threads) +
                                " threads requested, the CPU has " + std::to_string(total) + " cores");
  }
  if (t.max_threads > 0) threads = std::min(threads, t.max_threads);
  // Clusters fastest first for this task, ties in their order (a stable insertion sort: a few
  // clusters, and this runs per CPU task, so nothing is allocated).
  boost::container::small_vector<const CpuCluster*, 4> order;
  boost::container::small_vector<double, 4> rate;
  for (const auto& c : clusters_) {
    const double r = task_ops_per_second(c->spec(), t);
    std::size_t at = order.size();
    while (at > 0 && rate[at - 1] < r) --at;
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), c.get());
    rate.insert(rate.begin() + static_cast<std::ptrdiff_t>(at), r);
  }
  struct Pick {
    const CpuCluster* cluster;
    std::uint32_t threads;
    double weight;  // this part's share of the work, unnormalized
  };
  boost::container::small_vector<Pick, 4> picks;
  double total_weight = 0;
  for (std::uint32_t left = threads; const CpuCluster* c : order) {
    if (left == 0) break;
    const std::uint32_t n = std::min(left, c->spec().cores);
    // Static partition: a share per thread; dynamic chunks: a share per unit of throughput.
    picks.push_back({c, n, t.even_split ? static_cast<double>(n) : n * task_ops_per_second(c->spec(), t)});
    total_weight += picks.back().weight;
    left -= n;
  }
  if (picks.size() == 1) return run(t, picks[0].cluster->name(), threads, stalled);
  TaskList parts;
  std::uint64_t bytes_left = t.dram_bytes;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const double share = picks[i].weight / total_weight;
    CpuTask part = t;
    part.ops = t.ops * share;
    // Bytes follow the same share; the last part takes the rounding remainder.
    const bool last = i + 1 == picks.size();
    const auto rounded = static_cast<std::uint64_t>(std::llround(static_cast<double>(t.dram_bytes) * share));
    const std::uint64_t bytes = last ? bytes_left : std::min(bytes_left, rounded);
    part.dram_bytes = bytes;
    bytes_left -= bytes;
    parts.push_back(run(part, picks[i].cluster->name(), picks[i].threads, stalled));
  }
  return when_all(sim_, std::move(parts));
}

Tick CpuComplex::compute_time(const CpuTask& t, std::string_view cluster, std::uint32_t threads) const {
  const auto c = find(cluster);
  if (threads == 0 || threads > c->spec().cores) {
    throw std::invalid_argument("compute_time: " + std::to_string(threads) + " threads on cluster '" + c->name() +
                                "', which has " + std::to_string(c->spec().cores) + " cores");
  }
  if (t.max_threads > 0) threads = std::min(threads, t.max_threads);
  const Tick compute = c->clock().cycles_to_ticks(
      compute_cycles_per_thread(padded_ops(t, spec_.gemm_tile_rows), task_ops_per_cycle(c->spec(), t), threads));
  const double rate = std::min({threads * c->spec().core_bandwidth, spec_.port_bandwidth, dram_.peak_bytes_per_s()});
  const Tick dram = t.dram_bytes == 0 ? 0 : seconds_to_ticks_ceil(static_cast<double>(t.dram_bytes) / rate);
  return spec_.task_dispatch + std::max(compute, dram);
}

}  // namespace socsim::hw
