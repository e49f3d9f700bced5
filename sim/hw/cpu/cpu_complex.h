#pragma once
// The CPU complex (DESIGN.md 1.1): big.LITTLE clusters of identical cores with per-core SIMD
// throughput and clock, a per-core DRAM stream under the shared CPU port, a thread-pool dispatch
// cost per parallel task, usleep granularity and flag polling (HeteroLLM 4.2).
//
// Timing of run(): the task's work is split evenly over its threads; each thread takes
// max(compute, DRAM) where compute = ceil(ops / threads / ops_per_cycle) cycles of its cluster's
// clock and DRAM is its share of the bytes moved as one flow on its core's port (so contention
// from other masters and the CPU port cap slow it down). Cores are held from the grant until
// every thread is done (early threads spin in the barrier, as ggml's threads do), plus the
// dispatch cost paid once per call before the threads start.
//
// A task run alone is replayed. Much of a CPU decode is the same task again and again (a layer's
// matmuls at one shape, every layer and step; attention at one KV length, every layer of a step)
// on a CPU with nothing beside it. Such a run is a pure function of the cluster, the thread
// count, whether the cluster wakes up (idle_threshold), the compute time and the bytes: it starts
// with the cluster's cores free and no DRAM flow anywhere, and nothing else can start before it
// ends (every wake-up in the engine goes through the event queue, so no event is pending at or
// before its end and none is due now), so it takes the time and leaves the statistics it left the
// last time. The second time such a task is met it is recorded on a scratch CPU and DRAM of the
// same description (from time 0: timing is invariant under a shift in time); from then on it is
// one delay plus the recorded statistics. Never replayed: a traced run or a recorded DRAM
// timeline (they want every span), one part of a task spread over several clusters
// (run_on_fastest: its parts start together). Results equal the event-by-event run's up to the
// rounding of time-weighted sums added in another order (tests/unit/cpu/cpu_alone_replay_test.cpp).
//
//   CpuComplex cpu(sim, soc.cpu, dram, dram.add_port("cpu", soc.cpu.port_bandwidth), &trace);
//   co_await cpu.run({"ffn_up", 2.0 * m * k * n, DType::kInt8, k * n, m}, "mid", 4);
#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "sim/core/simulator.h"
#include "sim/core/statistics.h"
#include "sim/core/sync.h"
#include "sim/core/task.h"
#include "sim/hw/cpu/cpu_cluster.h"
#include "sim/hw/cpu/cpu_run_record.h"
#include "sim/hw/cpu/cpu_spec.h"
#include "sim/hw/cpu/cpu_task.h"
#include "sim/hw/memory/dram_model.h"
#include "sim/report/trace.h"

namespace socsim::hw {

class CpuComplex {
 public:
  // Adds one DRAM port per core under cpu_port (see CpuCluster). trace may be null.
  CpuComplex(Simulator& sim, const CpuSpec& spec, DramModel& dram, PortId cpu_port, report::TraceRecorder* trace);
  CpuComplex(const CpuComplex&) = delete;
  CpuComplex& operator=(const CpuComplex&) = delete;

  // Runs `t` on `threads` cores of `cluster`, waiting FIFO for them. Checked at the call
  // (std::invalid_argument): unknown cluster, threads == 0, threads > the cluster's cores.
  // The task is copied: the caller's object need not outlive the returned Task.
  // `stalled`, when given, gets the core-time the task's cores waited on DRAM after their compute
  // (the stalled power's share of its energy) added to it; it must outlive the returned Task.
  Task<> run(const CpuTask& t, std::string_view cluster, std::uint32_t threads, Tick* stalled = nullptr);
  // Spreads `t` over up to `threads` of the fastest cores for it: clusters are filled in order of
  // the time one core would take for its even share of the task, wake-up included (0 for a
  // cluster that is awake with the cores free now, else idle_wakeup: an idle one wakes, a busy one
  // would make the task wait an unknown time) plus the share at the core's
  // rate (the lower of its arithmetic and its DRAM stream): prime, then mid, ... for a large task,
  // but a small task does not wake an idle cluster whose faster core would not repay the
  // wake-up. Each cluster's part gets a share of the ops and bytes proportional to its
  // throughput (ggml hands out mul_mat chunks dynamically, so faster cores take more of them), or
  // to its thread count for a task with even_split (a static partition: the slowest cores finish
  // last). Each part runs as run() would; all start together. A task's max_threads caps
  // `threads`, and so do pinned cores (set_pins): they are left out, and the task runs on the
  // cores left when it asked for more; when every core is pinned it runs on them (sharing them).
  Task<> run_on_fastest(const CpuTask& t, std::uint32_t threads, Tick* stalled = nullptr);
  // Pins cores: run_on_fastest takes at most a cluster's cores less its pinned ones, so those are
  // left to the work that names the cluster (run()), as a runtime that pins its threads to cores
  // (shadowAttn's CPU budget) keeps its other threads off those. A cap per call, not a separate
  // pool: cores are granted in FIFO order, so named work queued behind a run_on_fastest request
  // still waiting for its cores (two host lanes at once) waits for it. Replaces the pins in force;
  // an empty list removes them. Throws std::invalid_argument for an unknown cluster or more cores
  // than it has (nothing changes then).
  void set_pins(const std::vector<CpuPin>& pins);
  std::uint32_t pinned(std::string_view cluster) const;
  // usleep(): wakes after the smallest multiple of sleep_granularity >= duration (10 us with a
  // 90 us granularity wakes after 90 us; HeteroLLM 4.2 measures 80-100 us). Holds no core.
  Task<> sleep(Tick duration);
  // Spins on `flag` holding one core of `cluster` busy: the core checks at grant time and then
  // every poll_interval, so it wakes at the first check at or after the fire time.
  Task<> poll_until(Trigger& flag, std::string_view cluster);
  // Host software of a known duration (a vendor runtime compiling a graph): one core of
  // `cluster` busy for `duration`.
  Task<> hold(std::string_view cluster, Tick duration, std::string name);

  // run()'s duration with no contention and no queueing, for solvers: dispatch +
  // max(compute per thread, bytes / min(threads x core bandwidth, CPU port, DRAM peak)).
  Tick compute_time(const CpuTask& t, std::string_view cluster, std::uint32_t threads) const;

  // Statistics, up to now.
  Tick core_busy(std::string_view cluster) const;  // core-time: sum over the cluster's cores
  Tick wall_busy(std::string_view cluster) const;  // time with >= 1 core of the cluster busy
  double ops_done(std::string_view cluster) const; // useful (unpadded) ops of finished tasks
  double ops_done() const;
  std::map<std::string, Tick> core_busy_by_cluster() const;        // for the energy model
  std::map<std::string, Tick> core_stalled_by_cluster() const;     // part of core_busy waiting on DRAM
  std::map<std::string, std::uint32_t> cores_by_cluster() const;  // for the energy model
  // Names "cpu.<cluster>.busy" (wall) and "cpu.<cluster><i>.busy" (per core).
  void register_stats(StatRegistry& reg) const;
  const CpuSpec& spec() const { return spec_; }

  // Tasks run alone replayed (above); off, every task runs event by event (tests compare the two).
  bool replay_alone_runs() const { return replay_alone_runs_; }
  void set_replay_alone_runs(bool on) { replay_alone_runs_ = on; }
  std::uint64_t replays() const { return memo_.replays(); }

 private:
  std::shared_ptr<CpuCluster> find(std::string_view cluster) const;  // throws std::invalid_argument
  // One cluster's part of a task: its cores, compute time per thread, bytes and useful ops.
  struct Part {
    std::shared_ptr<CpuCluster> cluster;
    std::uint32_t threads = 0;
    Tick compute = 0;
    std::uint64_t bytes = 0;
    double ops = 0;
  };
  using PartList = boost::container::small_vector<Part, 2>;
  // What a recording runs for one part (the cluster by index: the scratch CPU has its own).
  struct RecordedPart {
    std::size_t cluster = 0;
    std::uint32_t threads = 0;
    bool cold = false;
    Tick compute = 0;
    std::uint64_t bytes = 0;
  };
  static void check_ops(const CpuTask& t);  // throws std::invalid_argument
  std::string traced_name(const CpuTask& t) const;  // empty unless a trace records hardware spans
  Part part_of(const CpuTask& t, std::shared_ptr<CpuCluster> c, std::uint32_t threads) const;
  // A part doing `ops` of t's ops and moving `bytes` (its share on one cluster), t's kind of work.
  Part part_of(const CpuTask& t, std::shared_ptr<CpuCluster> c, std::uint32_t threads, double ops, std::uint64_t bytes) const;
  // A task's parts, started together (each waits FIFO for its cluster's cores); replayed when
  // they run alone (above).
  Task<> run_parts(PartList parts, std::string name, Tick* stalled);
  // The timed part of one cluster's share: its cores, wake-up and dispatch, the threads' compute
  // and DRAM streams. `cold`: whether the cluster wakes up; decided at the grant when not given.
  Task<> run_timed(std::shared_ptr<CpuCluster> c, std::uint32_t threads, Tick compute, std::uint64_t bytes, std::string_view name,
                   Tick* stalled, std::optional<bool> cold);
  // The replay's checks that need no record: on, untraced, the parts' cores free, no DRAM flow,
  // nothing due now.
  bool may_replay(const PartList& parts) const;
  // The record to replay these parts from now, or null (above); recorded on a scratch CPU the
  // second time they are met.
  CpuRunMemo::Shared alone_record(const PartList& parts);
  CpuRunRecord record_alone(const std::vector<RecordedPart>& what) const;
  std::size_t index_of(const CpuCluster& c) const;
  // `name` views the task's name in run_parts's frame, which outlives the part, as `c` (a cluster of
  // this complex) does.
  // A core that finishes its compute before its DRAM stream waits stalled for the rest.
  Task<> core_part(CpuCluster& c, std::uint32_t core, Tick compute, std::uint64_t bytes,
                   std::string_view name, Tick* stalled);
  Task<> poll_on(Trigger& flag, std::shared_ptr<CpuCluster> c);
  Task<> hold_on(std::shared_ptr<CpuCluster> c, Tick duration, std::string name);
  std::string track(const CpuCluster& c, std::uint32_t core) const;

  Simulator& sim_;
  CpuSpec spec_;
  DramModel& dram_;
  report::TraceRecorder* trace_;
  // shared_ptr: a coroutine frame destroyed at teardown still returns its cores to a live
  // cluster even when the complex itself was destroyed first (usual declaration order).
  std::vector<std::shared_ptr<CpuCluster>> clusters_;
  PortId cpu_port_;
  bool replay_alone_runs_ = true;
  CpuRunMemo memo_;
  std::vector<std::uint32_t> pinned_;  // per cluster, in clusters_'s order (set_pins)
};

}  // namespace socsim::hw
