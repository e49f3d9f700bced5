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
//   CpuComplex cpu(sim, soc.cpu, dram, dram.add_port("cpu", soc.cpu.port_bandwidth), &trace);
//   co_await cpu.run({"ffn_up", 2.0 * m * k * n, DType::kInt8, k * n, m}, "mid", 4);
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/simulator.h"
#include "sim/core/statistics.h"
#include "sim/core/sync.h"
#include "sim/core/task.h"
#include "sim/hw/cpu/cpu_cluster.h"
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
  // Spreads `t` over up to `threads` of the fastest cores for its dtype: clusters are filled in
  // order of per-core ops/s (prime, then mid, ...), and each cluster's part gets a share of the
  // ops and bytes proportional to its throughput (ggml hands out mul_mat chunks dynamically, so
  // faster cores take more of them), or to its thread count for a task with even_split (a static
  // partition: the slowest cores finish last). Each part is one run() call; all start together.
  // A task's max_threads caps `threads`.
  Task<> run_on_fastest(const CpuTask& t, std::uint32_t threads, Tick* stalled = nullptr);
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

 private:
  std::shared_ptr<CpuCluster> find(std::string_view cluster) const;  // throws std::invalid_argument
  Task<> run_on(CpuTask t, std::shared_ptr<CpuCluster> c, std::uint32_t threads, Tick* stalled);
  // `name` views the task's name in run_on's frame, which outlives the part, as `c` (a cluster of
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
};

}  // namespace socsim::hw
