#include "sim/hw/cpu/cpu_complex.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <boost/container/small_vector.hpp>

#include "sim/core/signature.h"
#include "sim/hw/cpu/fair_streams.h"

namespace socsim::hw {

CpuComplex::CpuComplex(Simulator& sim, const CpuSpec& spec, DramModel& dram, PortId cpu_port,
                       report::TraceRecorder* trace)
    : sim_(sim), spec_(spec), dram_(dram), trace_(trace), cpu_port_(cpu_port) {
  for (const auto& c : spec_.clusters) clusters_.push_back(std::make_shared<CpuCluster>(sim, c, dram, cpu_port));
  pinned_.assign(clusters_.size(), 0);
}

void CpuComplex::set_pins(const std::vector<CpuPin>& pins) {
  std::vector<std::uint32_t> pinned(clusters_.size(), 0);
  for (const auto& p : pins) {
    const auto c = find(p.cluster);
    std::uint32_t& n = pinned[index_of(*c)];
    if (p.cores > c->spec().cores - n) {
      throw std::invalid_argument("cannot pin " + std::to_string(p.cores) + " more cores of cluster '" + c->name() +
                                  "': it has " + std::to_string(c->spec().cores) + ", " + std::to_string(n) + " pinned");
    }
    n += p.cores;
  }
  pinned_ = std::move(pinned);
}

std::uint32_t CpuComplex::pinned(std::string_view cluster) const { return pinned_[index_of(*find(cluster))]; }

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
  check_ops(t);
  if (t.max_threads > 0) threads = std::min(threads, t.max_threads);
  PartList parts;
  parts.push_back(part_of(t, std::move(c), threads));
  return run_parts(std::move(parts), traced_name(t), stalled);
}

std::string CpuComplex::traced_name(const CpuTask& t) const {
  // The name only labels trace spans: copying it per task was a share of untraced runs.
  return report::tracing_hardware(trace_) ? t.name : std::string();
}

void CpuComplex::check_ops(const CpuTask& t) {
  if (!(t.ops >= 0) || !std::isfinite(t.ops)) {
    throw std::invalid_argument("CPU task '" + t.name + "': ops must be finite and >= 0");
  }
}

CpuComplex::Part CpuComplex::part_of(const CpuTask& t, std::shared_ptr<CpuCluster> c, std::uint32_t threads) const {
  return part_of(t, std::move(c), threads, t.ops, t.dram_bytes);
}

CpuComplex::Part CpuComplex::part_of(const CpuTask& t, std::shared_ptr<CpuCluster> c, std::uint32_t threads, double ops,
                                     std::uint64_t bytes) const {
  const std::uint64_t cycles =
      compute_cycles_per_thread(padded_ops(t, ops, spec_.gemm_tile_rows), task_ops_per_cycle(c->spec(), t), threads);
  const Tick compute = c->clock().cycles_to_ticks(cycles);
  return Part{std::move(c), threads, compute, bytes, ops};
}

Task<> CpuComplex::run_parts(PartList parts, std::string name, Tick* stalled) {
  if (may_replay(parts)) {
    if (const CpuRunMemo::Shared found = alone_record(parts)) {
      const CpuRunRecord& rec = *found;  // `found` holds it: the memo may start over before the delay ends
      const Tick start = sim_.now();
      co_await sim_.delay(rec.duration);
      for (std::size_t i = 0; i < parts.size(); ++i) {
        CpuCluster& c = *parts[i].cluster;
        const auto& r = rec.clusters.at(i);
        c.absorb(r, start);
        for (std::uint32_t k = 0; k < r.core_ports.size(); ++k) dram_.absorb(c.core_port(k), r.core_ports[k]);
      }
      dram_.absorb(rec.dram, start);
      dram_.absorb(cpu_port_, rec.cpu_port);
      if (stalled) *stalled += rec.stalled;
      memo_.count_replay();
      sim_.note_replay(rec.events);
      for (const auto& p : parts) p.cluster->add_ops(p.ops);
      co_return;
    }
  }
  if (parts.size() == 1) {
    co_await run_timed(parts[0].cluster, parts[0].threads, parts[0].compute, parts[0].bytes, name, stalled, std::nullopt);
  } else {
    // The parts start together, each on its own cluster's cores.
    TaskList timed;
    for (const auto& p : parts) timed.push_back(run_timed(p.cluster, p.threads, p.compute, p.bytes, name, stalled, std::nullopt));
    co_await when_all(sim_, std::move(timed));
  }
  for (const auto& p : parts) p.cluster->add_ops(p.ops);
}

Task<> CpuComplex::run_timed(std::shared_ptr<CpuCluster> c, std::uint32_t threads, Tick compute, std::uint64_t bytes,
                             std::string_view name, Tick* stalled, std::optional<bool> cold) {
  Lease lease = co_await c->cores().acquire(threads);
  const bool wakes = cold.has_value() ? *cold : c->idle_for_at_least(spec_.idle_threshold);
  CoreGrant grant(c, std::move(lease), threads);
  const Tick start = sim_.now();
  const Tick wakeup = wakes ? spec_.idle_wakeup : 0;  // not inside co_await (lint-coawait-ternary)
  co_await sim_.delay(wakeup + spec_.task_dispatch);
  // Even split of the bytes; the first (bytes % threads) threads move one byte more.
  const std::uint64_t base = bytes / threads, extra = bytes % threads;
  if (threads == 1) {
    co_await core_part(*c, grant.cores()[0], compute, bytes, name, stalled);
  } else {
    TaskList parts;
    for (std::uint32_t i = 0; i < threads; ++i) {
      parts.push_back(core_part(*c, grant.cores()[i], compute, base + (i < extra ? 1 : 0), name, stalled));
    }
    co_await when_all(sim_, std::move(parts));
  }
  if (report::tracing_hardware(trace_)) {
    // The idle exit and dispatch show on the first core's track, in the order they are paid (the
    // wake-up first): it is the thread that wakes the others. (The wake-up had no span, and
    // dispatch was drawn over it, so a core's track summed less than its busy time.)
    const std::string first = track(*c, grant.cores()[0]);
    if (wakeup > 0) trace_->hardware_span(first, "idle wake-up", start, start + wakeup);
    if (spec_.task_dispatch > 0) trace_->hardware_span(first, "dispatch", start + wakeup, start + wakeup + spec_.task_dispatch);
  }
}

bool CpuComplex::may_replay(const PartList& parts) const {
  if (!replay_alone_runs_ || report::tracing_hardware(trace_) || dram_.recording_timeline()) return false;
  // The scratch CPU of a recording hangs its port at the top of its DRAM, as a SoC does.
  if (dram_.port_parent(cpu_port_)) return false;
  if (dram_.active_flows() != 0) return false;
  for (const auto& p : parts) {
    if (!p.cluster->cores().idle()) return false;
  }
  // Something due now may start beside the task.
  return sim_.next_event_time() != sim_.now();
}

std::size_t CpuComplex::index_of(const CpuCluster& c) const {
  for (std::size_t i = 0; i < clusters_.size(); ++i) {
    if (clusters_[i].get() == &c) return i;
  }
  throw std::logic_error("cpu: a cluster of another complex");
}

CpuRunMemo::Shared CpuComplex::alone_record(const PartList& parts) {
  // Each part's timing is a function of these and of the cluster's description (fixed per run).
  const auto recorded = [this](const Part& p) {
    return RecordedPart{index_of(*p.cluster), p.threads, p.cluster->idle_for_at_least(spec_.idle_threshold), p.compute, p.bytes};
  };
  SignatureBuilder sig;
  sig.add(static_cast<std::uint64_t>(parts.size()));
  for (const auto& p : parts) {
    const RecordedPart w = recorded(p);
    sig.add(static_cast<std::uint64_t>(w.cluster));
    sig.add(static_cast<std::uint64_t>(w.threads));
    sig.add(static_cast<std::uint64_t>(w.cold));
    sig.add(static_cast<std::uint64_t>(w.compute));
    sig.add(w.bytes);
  }
  return memo_.replayable(sig.key(), sim_, [&] {
    std::vector<RecordedPart> what;
    for (const auto& p : parts) what.push_back(recorded(p));
    return record_alone(what);
  });
}

CpuRunRecord CpuComplex::record_alone(const std::vector<RecordedPart>& what) const {
  Simulator sim;
  DramModel dram(sim, dram_.peak_bytes_per_s(), dram_.concurrency_efficiency());
  CpuComplex scratch(sim, spec_, dram, dram.add_port("cpu", dram_.port_cap(cpu_port_)), nullptr);
  scratch.set_replay_alone_runs(false);
  CpuRunRecord r;
  TaskList timed;
  for (const auto& w : what) {
    timed.push_back(scratch.run_timed(scratch.clusters_.at(w.cluster), w.threads, w.compute, w.bytes, "", &r.stalled, w.cold));
  }
  // As run_parts runs them (one part directly, several under when_all), so the recording fires the
  // events the run would have (the report's events_saved_by_replays).
  Task<> run = timed.size() == 1 ? std::move(timed.front()) : when_all(sim, std::move(timed));
  sim.spawn(run_and_note_end(sim, std::move(run), r.duration), "cpu.record");
  // The task ran to its end once already (it is recorded the second time it is met), so it ends here.
  if (sim.run() != RunResult::kIdle || sim.live_processes() != 0) throw std::logic_error("cpu: a recorded run did not end");
  for (const auto& w : what) {
    const auto& c = *scratch.clusters_.at(w.cluster);
    CpuRunRecord::Cluster k;
    k.cores = c.cores().stats();
    for (std::uint32_t i = 0; i < w.threads; ++i) {
      k.core_busy.push_back(c.core_busy_time(i));
      k.core_ports.push_back(dram.port_stats(c.core_port(i)));
    }
    k.wall = c.wall_busy_time();
    k.stalled = c.core_stalled();
    k.idle_since = c.idle_since();
    r.clusters.push_back(std::move(k));
  }
  r.dram = dram.stats();
  r.cpu_port = dram.port_stats(scratch.cpu_port_);
  r.events = sim.events_fired() - 1;
  return r;
}

Task<> CpuComplex::core_part(CpuCluster& c, std::uint32_t core, Tick compute, std::uint64_t bytes,
                             std::string_view name, Tick* stalled) {
  // Compute and the DRAM stream overlap (prefetching SIMD loops): the thread ends at the later.
  const Tick start = sim_.now();
  const Tick compute_end = sim_.checked_add(start, compute);
  co_await dram_.flow(c.core_port(core), bytes);
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
  check_ops(t);
  if (t.max_threads > 0) threads = std::min(threads, t.max_threads);
  // Pinned cores are left out while any other is left; on a CPU whose every core is pinned (a
  // one-core phone and a one-core budget) the work shares them, as an OS runs a thread with no
  // core of its own on the pinned ones.
  std::uint32_t unpinned = 0;
  for (std::size_t i = 0; i < clusters_.size(); ++i) unpinned += clusters_[i]->spec().cores - pinned_[i];
  const bool keep_off_pinned = unpinned > 0;
  if (keep_off_pinned) threads = std::min(threads, unpinned);
  const auto unpinned_of = [&](std::size_t i) { return clusters_[i]->spec().cores - (keep_off_pinned ? pinned_[i] : 0); };
  // A core's rate at this task is the lower of its arithmetic and its DRAM stream: a memory-bound
  // task on a core with a faster clock but the same stream goes no faster (ranking and sharing by
  // arithmetic alone gave a faster core more bytes than it could move, and the run got slower).
  // Rates in the ops the cores execute: a GEMM's rows padded to the row block (a few rows' GEMM
  // is compute-bound on the whole block, whatever its bytes).
  const double executed = padded_ops(t, spec_.gemm_tile_rows);
  const double bytes_per_op = executed > 0 ? static_cast<double>(t.dram_bytes) / executed : 0.0;
  const double shared = std::min(spec_.port_bandwidth, dram_.peak_bytes_per_s());  // what the cores' streams share
  // One core's rate: its arithmetic (`arithmetic` ops/s), or its stream when that is lower.
  const auto effective = [&](double arithmetic, double stream) {
    return bytes_per_op > 0 && stream > 0 ? std::min(arithmetic, stream / bytes_per_op) : arithmetic;
  };
  struct Ranked {
    const CpuCluster* cluster;
    std::uint32_t cores;  // its cores not pinned
    double arithmetic;    // one core's ops/s for this task
    double rate;          // the lower of that and its stream (alone under the port)
    double finish;        // seconds one core takes for an even share of the task, waking first
  };
  // What one core would take for its share: the cluster's wake-up when it would pay one (as
  // run_timed decides at the grant), then the share at the core's rate. Ranking by the rate alone
  // sent a small task to an idle faster cluster that woke up for it every time. Only an awake
  // cluster with its part's cores free now starts at once; one that is busy would keep the task
  // waiting for a time not known here, so it is charged a wake-up as an idle one is, which leaves
  // the choice between those two to the rates (as before wake-ups counted).
  const double share = executed / threads;
  const double wakeup = to_seconds(spec_.idle_wakeup);
  // Clusters soonest first, ties by rate and then in their order (a stable insertion sort: a few
  // clusters, and this runs per CPU task, so nothing is allocated).
  const auto before = [](const Ranked& a, const Ranked& b) {
    return a.finish < b.finish || (a.finish == b.finish && a.rate > b.rate);
  };
  boost::container::small_vector<Ranked, 4> order;
  for (std::size_t i = 0; i < clusters_.size(); ++i) {
    const CpuCluster& c = *clusters_[i];
    const std::uint32_t cores = unpinned_of(i);
    if (cores == 0) continue;
    const double a = task_ops_per_second(c.spec(), t);
    const double r = effective(a, std::min(c.spec().core_bandwidth, shared));
    const bool starts_now = !c.idle_for_at_least(spec_.idle_threshold) && c.cores().available() >= std::min(threads, cores);
    const double wakes = starts_now ? 0.0 : wakeup;
    const Ranked k{&c, cores, a, r, wakes + (share > 0 ? share / r : 0.0)};
    std::size_t at = order.size();
    while (at > 0 && before(k, order[at - 1])) --at;
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), k);
  }
  struct Pick {
    const CpuCluster* cluster;
    std::uint32_t threads;
    double arithmetic;  // one core's ops/s for this task
    double demand;      // the stream one core can use, bytes/s
    double weight;      // this part's share of the work, unnormalized
  };
  boost::container::small_vector<Pick, 4> picks;
  for (std::uint32_t left = threads; const Ranked& c : order) {
    if (left == 0) break;
    const std::uint32_t n = std::min(left, c.cores);
    const double cap = c.cluster->spec().core_bandwidth;
    const double usable = bytes_per_op > 0 ? c.arithmetic * bytes_per_op : cap;
    picks.push_back({c.cluster, n, c.arithmetic, cap > 0 ? std::min(cap, usable) : usable, 0.0});
    left -= n;
  }
  // Static partition: a share per thread. Dynamic chunks: a share per unit of throughput, each
  // core at the rate it reaches beside the others, its stream a max-min fair share of the CPU's
  // port (or DRAM's peak) under what it can use: its core_bandwidth, or less when its arithmetic
  // keeps it from moving more (a slow core's unused share goes to the others, as DRAM gives it
  // once that core's bytes are done). Water-filling, the least demanding cores first.
  const auto streams = fair_streams(picks, shared, [](const Pick& p) { return std::pair{p.threads, p.demand}; });
  double total_weight = 0;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const double n = static_cast<double>(picks[i].threads);
    picks[i].weight = t.even_split ? n : n * (executed > 0 ? effective(picks[i].arithmetic, streams[i]) : streams[i]);
    total_weight += picks[i].weight;
  }
  PartList parts;
  std::uint64_t bytes_left = t.dram_bytes;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const double share = picks[i].weight / total_weight;
    // The part's share of t (no copy of t: its name was an allocation per part).
    const double ops = picks.size() == 1 ? t.ops : t.ops * share;
    // Bytes follow the same share; the last part takes the rounding remainder.
    const bool last = i + 1 == picks.size();
    const auto rounded = static_cast<std::uint64_t>(std::llround(static_cast<double>(t.dram_bytes) * share));
    const std::uint64_t bytes = last ? bytes_left : std::min(bytes_left, rounded);
    bytes_left -= bytes;
    parts.push_back(part_of(t, find(picks[i].cluster->name()), picks[i].threads, ops, bytes));
  }
  return run_parts(std::move(parts), traced_name(t), stalled);
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
