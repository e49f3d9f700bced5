#pragma once
// Shared DRAM as a fluid resource: every active transfer is a flow; bandwidth is shared max-min
// fairly subject to each master's cap (one processor alone cannot reach the SoC peak) and
// recomputed whenever a flow starts or ends. Contention therefore slows everyone who shares it.
//
// Events: a flow start or end advances every flow's remaining bytes to now, recomputes all rates
// (max_min_fair.h) and arms one wake-up at the earliest completion. The engine cannot cancel an
// event, so a wake-up that is no longer the earliest completion is recognized as stale and ignored.
// Cost per start/end is O(active flows + ports^2); an idle DRAM schedules nothing.
//
//   DramModel dram(sim, 68e9, {1.0, 0.882});
//   PortId npu = dram.add_port("npu", 45e9);
//   PortId dma = dram.add_port("npu.dma", 40e9, npu);
//   co_await dram.transfer(dma, 1 << 20);
#include <algorithm>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/core/simulator.h"
#include "sim/core/statistics.h"
#include "sim/core/task.h"
#include "sim/core/time.h"
#include "sim/hw/memory/max_min_fair.h"

namespace socsim::hw {

using PortId = std::uint32_t;

class DramModel {
 public:
  // peak_bytes_per_s: the SoC-level achievable peak. concurrency_efficiency[i] = fraction of the
  // peak achievable when i+1 distinct top-level ports (masters) are streaming at once (row-buffer
  // conflicts between interleaved streams cost bandwidth); the last value applies to any larger
  // count; empty = {1.0}. Values in (0,1].
  DramModel(Simulator& sim, double peak_bytes_per_s, std::vector<double> concurrency_efficiency = {});
  // Coroutines still suspended in transfer() are detached, so the Simulator may destroy them
  // later (the usual declaration order). The model's pending wake-up stays queued: do not run the
  // Simulator again after destroying the model.
  ~DramModel();
  DramModel(const DramModel&) = delete;
  DramModel& operator=(const DramModel&) = delete;

  // Ports form a tree under the DRAM root: a top-level port is a master (cpu, gpu, npu), child
  // ports are paths inside it (npu.dma, npu.hvx), each with its own cap in bytes/s (the sum of the
  // flows under a port never exceeds its cap). Names are full dotted names, unique. A parent must
  // exist before its children.
  PortId add_port(std::string name, double cap_bytes_per_s, std::optional<PortId> parent = std::nullopt);
  PortId port(std::string_view name) const;  // throws std::out_of_range listing known names

  // Moves `bytes` through `port` (a flow); the task completes when the last byte has moved.
  // bytes == 0 completes immediately without an event. The port is checked at the call.
  Task<> transfer(PortId port, std::uint64_t bytes);
  // Callback form for non-coroutine users: on_done(ctx) is called at completion time (through
  // the event queue, in flow-start order among flows ending at the same tick). bytes == 0 calls
  // it at once. on_done may be null (background traffic nobody waits for).
  void start_flow(PortId port, std::uint64_t bytes, void (*on_done)(void*), void* ctx);
  // transfer() for a coroutine that awaits it at once (`co_await dram.flow(port, bytes)`): the
  // same events, without the transfer's own coroutine frame (one per DMA, CPU thread stream and
  // GPU copy). bytes == 0 does not suspend. The port is checked at the call.
  struct FlowWaiter;
  FlowWaiter flow(PortId port, std::uint64_t bytes);
  // Awaitable: `compute` ticks of work beside a flow of `bytes` through `port`, started together;
  // the caller resumes when both are done (a GPU kernel's arithmetic and its traffic). The events
  // are exactly those of when_all over sim.delay_task(compute) and transfer(port, bytes) (one start
  // event each, in that order, then each one's own, then the caller's resume through the queue),
  // or with one part empty those of the other awaited alone (bytes == 0: sim.delay(compute);
  // compute == 0: flow(port, bytes)), so results do not change; what goes is the join and the
  // children's coroutine frames. The port is checked at the call.
  class ComputeBesideFlow;
  ComputeBesideFlow compute_beside_flow(Tick compute, PortId port, std::uint64_t bytes);

  // Statistics (for reports). Bytes count completed flows plus the part of active flows moved by
  // now(), rounded down.
  std::uint64_t total_bytes() const;
  std::uint64_t port_bytes(PortId p) const;  // a parent includes its children
  double current_bandwidth() const;          // bytes/s summed over active flows now
  // Time-weighted aggregate bytes/s (average and max). Only the last rate set at a tick counts,
  // so flows starting together never report a zero-length peak.
  const TimeWeighted& bandwidth() const;
  const BusyTime& busy() const { return busy_; }  // time with >= 1 active flow
  const BusyTime& port_busy(PortId p) const;      // ... under that port
  double peak_bytes_per_s() const { return peak_; }
  const std::vector<double>& concurrency_efficiency() const { return efficiency_; }
  std::size_t active_flows() const { return flows_.size(); }
  bool recording_timeline() const { return record_timeline_; }

  // What an idle-to-idle stretch of traffic left in the statistics, taken from a model that ran
  // it alone from time 0 (an NPU run replayed: sim/runtime/npu_alone_replay.h) and added to this
  // one as if it had run here from `offset`. Both models must be idle (no flow) and neither may
  // record a timeline. Ports are matched by the caller (the same unit's ports on both).
  struct PortStats {
    BusyTime busy;
    std::uint64_t completed_bytes = 0;
  };
  struct Stats {
    BusyTime busy;
    std::uint64_t completed_bytes = 0;
    TimeWeighted bandwidth;
  };
  Stats stats() const;
  PortStats port_stats(PortId p) const;
  void absorb(const Stats& recorded, Tick offset);
  void absorb(PortId p, const PortStats& recorded);

  // Bandwidth timeline for plots: one sample per recomputation (time, aggregate bytes/s, bytes/s
  // under each port). Several recomputations at one tick keep only the last sample (the others
  // lasted no time). Off by default (memory); enable before running. Bounded: past
  // kTimelineLimit samples, neighbours merge into their time-weighted averages (each sample then
  // covers at least a spacing that doubles as needed), so a sample is a mean over its interval.
  static constexpr std::size_t kTimelineLimit = 1 << 18;
  void record_timeline(bool on, std::size_t limit = kTimelineLimit) {
    record_timeline_ = on;
    timeline_limit_ = std::max<std::size_t>(limit, 4);
  }
  struct Sample {
    Tick time;
    double total_bps;
    std::vector<double> port_bps;  // indexed by PortId, all ports
  };
  const std::vector<Sample>& timeline() const { return timeline_; }
  std::vector<std::string> port_names() const;  // indexed by PortId
  const std::string& port_name(PortId p) const;
  double port_cap(PortId p) const;                   // bytes/s, as added
  std::optional<PortId> port_parent(PortId p) const;

 private:
  struct Flow {
    std::uint64_t seq;      // start order: the order of everything that depends on flows
    PortId port;
    std::uint64_t bytes;
    double remaining;       // bytes still to move at last_update_
    double rate = 0.0;      // bytes/s since last_update_
    Tick finish = kTickMax; // completion computed at the last recomputation
    EventFn on_done;        // callback form ...
    void* ctx;
    FlowWaiter* waiter;     // ... or a suspended transfer() (then on_done is null)
  };
  struct Port {
    std::string name;
    std::optional<PortId> parent;
    std::uint32_t subtree_flows = 0;       // active flows on this port or below
    std::uint64_t completed_bytes = 0;     // finished flows on this port or below
    BusyTime busy;
  };

  Task<> run_transfer(PortId port, std::uint64_t bytes);
  void check_port(PortId p, const char* what) const;
  std::uint64_t begin_flow(PortId port, std::uint64_t bytes, EventFn on_done, void* ctx, FlowWaiter* waiter);
  void cancel_flow(std::uint64_t seq);
  static void on_wakeup(void* self);

  // The update cycle on every start or end: advance() brings remaining bytes to now,
  // retire_done() ends the flows that are done, the caller adds or removes its flow, and
  // recompute() sets the new rates and arms the next wake-up.
  void advance();
  void retire_done();
  void recompute();
  void account_start(const Flow& f);
  void account_end(const Flow& f, std::uint64_t moved_bytes);
  double efficiency(std::size_t masters) const;
  std::uint64_t moved_now(const Flow& f) const;
  void note_rates(const std::vector<double>& rate_by_port);
  void push_sample(Sample s);
  void coarsen_timeline();

  Simulator& sim_;
  double peak_;
  std::vector<double> efficiency_;
  FairShareTree tree_;                 // validated as ports are added
  FairShareScratch fair_scratch_;      // recompute()'s work arrays
  // The fair share is a pure function of the flow count per port (the root's capacity follows
  // from which masters are active, hence from the counts too), and a run revisits the same few
  // configurations millions of times: recompute() looks them up instead of water filling again.
  // The key is kept as flows start and end (sum of a per-port constant per flow); an entry also
  // holds its counts, so two configurations with one key never mix up.
  struct FairMemoEntry {
    std::vector<std::uint32_t> counts;
    std::vector<double> rates;
  };
  std::unordered_map<std::uint64_t, FairMemoEntry> fair_memo_;
  std::vector<std::uint64_t> port_key_;  // per port: a fixed pseudo-random 64-bit constant
  std::uint64_t counts_key_ = 0;         // sum over active flows of their port's constant
  static constexpr std::size_t kFairMemoLimit = 1 << 14;  // bounds host memory (~5 MB)
  std::vector<double> rates_;          // recompute()'s rate per port
  std::vector<Port> ports_;
  std::vector<std::uint32_t> flows_at_;  // active flows issued directly on each port
  std::size_t active_masters_ = 0;       // top-level ports with >= 1 active flow under them

  std::vector<Flow> flows_;  // active, in start order
  std::uint64_t next_seq_ = 0;
  Tick last_update_ = 0;
  Tick armed_ = kTickMax;    // the earliest completion; a wake-up at any other time is stale

  std::uint64_t completed_bytes_ = 0;
  double total_rate_ = 0.0;
  BusyTime busy_;
  // The bandwidth statistic lags one tick behind (see bandwidth()); mutable so the accessor can
  // publish the pending value.
  mutable TimeWeighted bandwidth_;
  mutable bool bandwidth_pending_ = false;
  mutable Tick pending_time_ = 0;
  mutable double pending_value_ = 0.0;
  bool record_timeline_ = false;
  std::vector<Sample> timeline_;
  std::size_t timeline_limit_ = kTimelineLimit;
  Tick sample_spacing_ = 0;  // minimum span of a timeline sample (0: every recomputation)
};

// The awaiter of a flow (transfer(), compute_beside_flow()). It lives in the suspended coroutine's
// frame, and the flow points at it so the two can detach from each other whichever goes first:
// the flow ends (the caller is notified), the model is destroyed, or the frame is destroyed
// mid-transfer (the flow is cancelled).
// [[nodiscard]]: an awaiter that is not awaited moves nothing (as a Task that is not awaited).
struct [[nodiscard]] DramModel::FlowWaiter {
  FlowWaiter(DramModel& m, PortId p, std::uint64_t b) : model(&m), port(p), bytes(b) {}
  FlowWaiter(const FlowWaiter&) = delete;
  FlowWaiter& operator=(const FlowWaiter&) = delete;
  ~FlowWaiter();
  bool await_ready() const noexcept { return bytes == 0; }
  void await_suspend(std::coroutine_handle<> h) {
    handle = h;
    begin();
  }
  void await_resume() const noexcept {}
  void begin() {
    seq = model->begin_flow(port, bytes, nullptr, nullptr, this);
    in_flight = true;
  }

  DramModel* model;
  PortId port;
  std::uint64_t bytes;
  std::uint64_t seq = 0;
  bool in_flight = false;
  // At the end, through the event queue: the awaiter's event when set, else resume handle.
  std::coroutine_handle<> handle;
  Simulator::FrameEvent* done = nullptr;
};

// Made by DramModel::compute_beside_flow (which checks the port), awaited once.
class [[nodiscard]] DramModel::ComputeBesideFlow {
  friend class DramModel;
  ComputeBesideFlow(DramModel& m, Tick compute, PortId port, std::uint64_t bytes)
      : sim_(m.sim_), compute_(compute), flow_(m, port, bytes) {
    flow_.done = &flow_done_;
  }

 public:
  ComputeBesideFlow(const ComputeBesideFlow&) = delete;
  ComputeBesideFlow& operator=(const ComputeBesideFlow&) = delete;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> caller);
  void await_resume() const noexcept {}

 private:
  static void start_compute(void* self);
  static void start_flow(void* self);
  static void compute_done(void* self);
  static void flow_done(void* self);
  void part_done();

  Simulator& sim_;
  Tick compute_;
  FlowWaiter flow_;
  // Each scheduled at most once; they go with the frame when its process is killed.
  Simulator::FrameEvent start_compute_{&start_compute, this}, start_flow_{&start_flow, this};
  Simulator::FrameEvent compute_done_{&compute_done, this}, flow_done_{&flow_done, this};
  std::coroutine_handle<> caller_;
  int pending_ = 2;
};

}  // namespace socsim::hw
