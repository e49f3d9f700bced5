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

class TraceRecorder {
 public:
  void span(std::string track, std::string name, Tick start, Tick end) {
    spans_.push_back({std::move(track), std::move(name), start, end});
  }
  void counter(std::string track, Tick time, double value) { counters_.push_back({std::move(track), time, value}); }
  const std::vector<TraceSpan>& spans() const { return spans_; }
  const std::vector<TraceCounter>& counters() const { return counters_; }

 private:
  std::vector<TraceSpan> spans_;
  std::vector<TraceCounter> counters_;
};

// Chrome trace-event JSON (opens in ui.perfetto.dev): one thread per track, in order of first use.
void write_chrome_trace(const TraceRecorder& trace, std::ostream& out);

}  // namespace socsim::report
