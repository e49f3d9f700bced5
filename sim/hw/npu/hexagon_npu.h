#pragma once
// A Hexagon-class NPU: scalar hardware threads that issue work, the HMX matrix engine, HVX vector
// contexts, a DMA engine between DRAM and TCM, and the vendor runtime's per-graph costs. Each
// engine is a FIFO resource, so work from several issuers queues and overlaps the way the
// hardware allows (HMX computes while DMA stages the next block). HVX contexts and HMX are driven
// by scalar hardware threads: work takes its engine first, then its threads (one per HVX context it
// uses, one for HMX): a software thread waiting for an HVX context or for HMX is blocked in the OS
// and holds no hardware thread (QuRT runs another on it), so six threads bound how much runs at
// once, never what waits; a pipelined kernel's HVX stage on four threads and its HMX stage on a
// fifth run side by side, on four threads they take turns. Work asking for more threads than the
// NPU can give it (more software threads than hardware threads or HVX contexts) runs on as many as
// there are. DMA runs on its own once its transfers are queued. Threads and contexts are named units, so the trace has a track per
// hardware thread (npu.thread0..) showing what each issued.
//
// DRAM ports (children of the shared DRAM model's root):
//   npu            cap port_bandwidth        everything the NPU moves
//   npu.dma        cap dma.bandwidth         DMA engine
//   npu.core       cap core_bandwidth        HVX/L2 path, all threads
//   npu.core.hvxN  cap hvx.read_bandwidth    one HVX thread's stream
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/core/clock_domain.h"
#include "sim/core/named_units.h"
#include "sim/core/resource.h"
#include "sim/core/simulator.h"
#include "sim/core/statistics.h"
#include "sim/hw/memory/dram_model.h"
#include "sim/hw/npu/gemm_plan.h"
#include "sim/hw/npu/npu_run_memo.h"
#include "sim/hw/npu/npu_spec.h"
#include "sim/report/trace.h"

namespace socsim::hw {

class HexagonNpu {
 public:
  HexagonNpu(Simulator& sim, const NpuSpec& spec, DramModel& dram, report::TraceRecorder* trace);
  HexagonNpu(const HexagonNpu&) = delete;
  HexagonNpu& operator=(const HexagonNpu&) = delete;

  const NpuSpec& spec() const { return spec_; }
  const ClockDomain& clock() const { return clock_; }
  Simulator& sim() { return sim_; }
  DramModel& dram() { return dram_; }

  // Nothing running or waiting on any engine, and no DRAM flow anywhere: work started now runs as
  // it would on a fresh NPU until something else starts.
  bool alone() const;
  // This NPU's statistics as a record of a run that started at time 0 and lasted `duration`
  // (precondition: alone()), and the addition of such a record as if it had run here from
  // `offset` (precondition: alone() at the end of the replayed stretch).
  NpuRunRecord record(Tick duration) const;
  void absorb(const NpuRunRecord& r, Tick offset);
  // GEMM plans come from `other`'s cache (a scratch NPU recording a run plans nothing twice).
  void share_plans_with(HexagonNpu& other) { plan_source_ = &other; }
  // Runs of the same work alone, remembered for replay (sim/runtime/npu_alone_replay.h); off,
  // every run is simulated event by event (tests compare the two).
  NpuRunMemo& run_memo() { return run_memo_; }
  bool replay_alone_runs() const { return replay_alone_runs_; }
  void set_replay_alone_runs(bool on) { replay_alone_runs_ = on; }

  // DMA between DRAM and TCM: `transfers` transfers moving `bytes` in total. Requests are served in
  // FIFO order; each transfer pays the set-up cost (channels overlap theirs), then the bytes flow
  // through the DRAM model, so other masters slow them down.
  Task<> dma(std::uint64_t bytes, std::uint64_t transfers, std::string name);
  // HMX busy for `cycles` NPU cycles.
  Task<> hmx(std::uint64_t cycles, std::string name);
  // `packets` VLIW packets of HVX work spread evenly over `threads` contexts (each issues
  // packets_per_cycle per cycle, hvx_threads(threads) of them); holds those contexts until done.
  Task<> hvx(double packets, std::uint32_t threads, std::string name);
  // Core-path (L2) streaming of `bytes` from DRAM by `threads` HVX threads, while they execute
  // `packets` packets of work on it (0 for a pure read): time is the longer of the two.
  Task<> hvx_stream(std::uint64_t bytes, std::uint32_t threads, std::string name, double packets = 0);
  // How many hardware threads work asking for `requested` HVX threads runs on: no more than the
  // HVX contexts and the scalar threads that drive them (software threads beyond those share
  // them). Throws for 0.
  std::uint32_t hvx_threads(std::uint32_t requested) const;
  // Host-side cost of executing a static graph of `ops` nodes (FastRPC-style call + per-node
  // dispatch), paid before its work starts. `client_io_bytes` > 0: the graph's tensors are client
  // buffers of that many bytes, synchronized by the call (npu.graph.client_io_*); 0: registered
  // shared memory, nothing to synchronize.
  Task<> graph_call(std::uint32_t ops, std::string name, std::uint64_t client_io_bytes = 0);
  // That cost without running it (planners' estimates).
  Tick graph_call_time(std::uint32_t ops, std::uint64_t client_io_bytes = 0) const;
  // The address-space limit: throws std::invalid_argument when `bytes` of buffers cannot be mapped
  // in one session (the message names both numbers).
  void check_mappable(std::uint64_t bytes, std::string_view what) const;
  // plan_hmx_gemm for this NPU, memoized by shape: the same GEMMs recur every layer and every
  // decode step, and planning tries every blocking. Shared so that starting over past
  // kGemmPlanCacheLimit shapes never pulls a plan from under a GEMM that is running.
  std::shared_ptr<const GemmPlan> gemm_plan(const GemmShape& shape, OperandHome home);
  static constexpr std::size_t kGemmPlanCacheLimit = 4096;

  // Statistics.
  const BusyTime& busy() const { return busy_; }  // any engine active
  // Time HMX / HVX computed (from the moment the work had its engine and its threads: an engine
  // taken while its work waits for a hardware thread is not busy), and the DMA engine's.
  const BusyTime& hmx_busy() const { return hmx_active_; }
  const BusyTime& dma_busy() const { return dma_.busy(); }
  const BusyTime& hvx_busy() const { return hvx_active_; }
  const Resource& threads() const { return scalar_.resource(); }
  std::uint64_t dma_bytes() const { return dma_bytes_.value(); }
  std::uint64_t hmx_cycles() const { return hmx_cycles_.value(); }
  // The NPU's master port: every NPU engine's DRAM traffic flows under it.
  PortId port() const { return port_; }
  PortId dma_port() const { return dma_port_; }
  // Whether hardware spans are recorded: callers build span names only then.
  bool tracing() const { return report::tracing_hardware(trace_); }
  PortId core_port() const { return core_port_; }

 private:
  void span(const std::string& track, const std::string& name, Tick start) const {
    if (report::tracing_hardware(trace_)) trace_->hardware_span(track, name, start, sim_.now());
  }
  // The same span on the track of every hardware thread in `threads`.
  void thread_spans(std::uint64_t threads, const std::string& name, Tick start) const;

  Simulator& sim_;
  NpuSpec spec_;
  ClockDomain clock_;
  DramModel& dram_;
  report::TraceRecorder* trace_;
  NamedUnits scalar_, hvx_;
  Resource hmx_, dma_, rpc_;
  PortId port_, dma_port_, core_port_;
  std::vector<PortId> hvx_ports_;
  BusyTime busy_;
  Counter dma_bytes_, hmx_cycles_;
  BusyTime hvx_active_, hmx_active_;  // engines computing (hvx_busy, hmx_busy)
  HexagonNpu* plan_source_ = nullptr;
  NpuRunMemo run_memo_;
  bool replay_alone_runs_ = true;
  // Keyed on every GemmShape field (and the operands' home): a plan of INT32 outputs is not one
  // of INT8 outputs at the same m, k, n.
  std::map<std::pair<decltype(std::declval<GemmShape>().key()), int>, std::shared_ptr<const GemmPlan>> gemm_plans_;
};

}  // namespace socsim::hw
