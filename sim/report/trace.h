#pragma once
// What a run records for its timeline: spans on named tracks (a processor, a hardware thread, a
// DMA channel, the GPU queue) and counter samples (DRAM bandwidth). Models append; writers in this
// folder turn it into a Perfetto/Chrome trace and the HTML report's Gantt chart.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace socsim::report {

struct TraceSpan {
  std::string track;  // "npu.hmx", "cpu.mid0", "dram"
  std::string name;   // op name
  Tick start = 0, end = 0;
};

struct TraceCounter {
  std::string track;  // "dram.bandwidth_gbps"
  Tick time = 0;
  double value = 0;
};

// A synchronization between tracks: the producer's slice at `from` hands over to the consumer's
// slice at `to` (Perfetto draws an arrow).
struct TraceFlow {
  std::string from_track;
  Tick from = 0;
  std::string to_track;
  Tick to = 0;
  std::string name;
};

// How much a run records. Hardware spans (each core, NPU thread, DMA transfer, GPU kernel, storage
// request) are the bulk of a trace: tens of thousands per decode token. Plan spans (one per job,
// its sync wait and hand-over arrows) are a few hundred per token.
enum class TraceDetail {
  kOff,      // nothing: no report asked for
  kSummary,  // plan spans and the DRAM bandwidth counter only
  kAuto,     // hardware spans too, until hardware_span_limit of them; plan spans from then on
  kFull,     // everything, however long the run (bounded only by --max-host-memory)
};

class TraceRecorder {
 public:
  // Hardware spans kept under kAuto: about 100 bytes each, so about 100 MB of trace, and a
  // trace.json Perfetto still opens. Plan spans have a limit of their own (same value).
  static constexpr std::size_t kDefaultSpanLimit = 1'000'000;

  explicit TraceRecorder(TraceDetail detail = TraceDetail::kFull, std::size_t span_limit = kDefaultSpanLimit)
      : detail_(detail), span_limit_(span_limit) {}

  TraceDetail detail() const { return detail_; }
  bool on() const { return detail_ != TraceDetail::kOff; }
  // Whether a hardware model should record now (callers test it before building names).
  bool hardware_on() const { return detail_ == TraceDetail::kFull || (detail_ == TraceDetail::kAuto && !hardware_stopped_); }

  // A hardware-level span or counter sample; under kAuto the first one past the limit ends
  // hardware detail for the rest of the run (hardware_until() says when).
  void hardware_span(std::string track, std::string name, Tick start, Tick end) {
    if (!admit_hardware(start)) return;
    spans_.push_back({std::move(track), std::move(name), start, end});
  }
  void hardware_counter(std::string track, Tick time, double value) {
    if (!admit_hardware(time)) return;
    counters_.push_back({std::move(track), time, value});
  }
  // Plan-level records (jobs, sync waits, hand-overs, the DRAM counter): kept unless the trace is
  // off; past span_limit plan spans (kAuto and kSummary) the rest are counted, not kept.
  void span(std::string track, std::string name, Tick start, Tick end) {
    if (!admit_plan()) return;
    spans_.push_back({std::move(track), std::move(name), start, end});
  }
  void counter(std::string track, Tick time, double value) {
    if (on()) counters_.push_back({std::move(track), time, value});
  }
  void flow(std::string from_track, Tick from, std::string to_track, Tick to, std::string name) {
    if (!admit_plan()) return;
    flows_.push_back({std::move(from_track), from, std::move(to_track), to, std::move(name)});
  }
  const std::vector<TraceSpan>& spans() const { return spans_; }
  const std::vector<TraceCounter>& counters() const { return counters_; }
  const std::vector<TraceFlow>& flows() const { return flows_; }

  // Under kAuto, when hardware detail stopped (nullopt: it never did); and how many plan records
  // were dropped past the limit (the report says both).
  std::optional<Tick> hardware_until() const { return hardware_stopped_ ? std::optional<Tick>(hardware_until_) : std::nullopt; }
  std::uint64_t plan_dropped() const { return plan_dropped_; }

 private:
  bool admit_hardware(Tick at) {
    if (!hardware_on()) return false;
    if (detail_ == TraceDetail::kAuto && hardware_kept_ >= span_limit_) {
      hardware_stopped_ = true;
      hardware_until_ = at;
      return false;
    }
    ++hardware_kept_;
    return true;
  }
  bool admit_plan() {
    if (!on()) return false;
    if (detail_ != TraceDetail::kFull && plan_kept_ >= span_limit_) {
      ++plan_dropped_;
      return false;
    }
    ++plan_kept_;
    return true;
  }

  TraceDetail detail_;
  std::size_t span_limit_;
  std::size_t hardware_kept_ = 0, plan_kept_ = 0;
  bool hardware_stopped_ = false;
  Tick hardware_until_ = 0;
  std::uint64_t plan_dropped_ = 0;
  std::vector<TraceSpan> spans_;
  std::vector<TraceCounter> counters_;
  std::vector<TraceFlow> flows_;
};

// Whether a model holding `trace` (may be null) should record hardware detail now.
inline bool tracing_hardware(const TraceRecorder* trace) { return trace != nullptr && trace->hardware_on(); }

// Chrome trace-event JSON (opens in ui.perfetto.dev): one process per unit (NPU, GPU, CPU, DRAM,
// storage; by the track's first dotted component), one thread per track in order of first use,
// counters under their unit, flows as s/f event pairs bound to the enclosing slices.
void write_chrome_trace(const TraceRecorder& trace, std::ostream& out);

}  // namespace socsim::report
