#pragma once
// What a run records for its timeline: spans on named tracks (a processor, a hardware thread, a
// DMA channel, the GPU queue) and counter samples (DRAM bandwidth). Models append; writers in this
// folder turn it into a Perfetto/Chrome trace and the HTML report's Gantt chart.
#include <cstdint>
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

class TraceRecorder {
 public:
  void span(std::string track, std::string name, Tick start, Tick end) {
    spans_.push_back({std::move(track), std::move(name), start, end});
  }
  void counter(std::string track, Tick time, double value) { counters_.push_back({std::move(track), time, value}); }
  void flow(std::string from_track, Tick from, std::string to_track, Tick to, std::string name) {
    flows_.push_back({std::move(from_track), from, std::move(to_track), to, std::move(name)});
  }
  const std::vector<TraceSpan>& spans() const { return spans_; }
  const std::vector<TraceCounter>& counters() const { return counters_; }
  const std::vector<TraceFlow>& flows() const { return flows_; }

 private:
  std::vector<TraceSpan> spans_;
  std::vector<TraceCounter> counters_;
  std::vector<TraceFlow> flows_;
};

// Chrome trace-event JSON (opens in ui.perfetto.dev): one process per unit (NPU, GPU, CPU, DRAM,
// storage; by the track's first dotted component), one thread per track in order of first use,
// counters under their unit, flows as s/f event pairs bound to the enclosing slices.
void write_chrome_trace(const TraceRecorder& trace, std::ostream& out);

}  // namespace socsim::report
