#pragma once
// The HTML report's timeline: a Gantt chart of every track and the DRAM bandwidth over time, as
// inline SVG. Long runs record hundreds of thousands of spans and bandwidth samples; drawing each
// would make a page of tens of megabytes that browsers struggle with, so both are aggregated at
// the chart's pixel resolution (spans less than a pixel apart merge into one bar whose tooltip
// says what it holds; bandwidth is averaged per pixel column, with the per-column peak drawn
// too). The page says how much was merged; trace.json keeps every span.
#include <cstddef>
#include <ostream>

#include "sim/report/trace.h"

namespace socsim::report::html {

struct GanttStats {
  std::size_t spans = 0, bars = 0, tracks = 0;
};

constexpr double kChartWidth = 1000;  // px of the time axis

// Tracks ordered by unit (npu, gpu, cpu, storage, others) then name.
GanttStats write_gantt(const TraceRecorder& trace, Tick end, std::ostream& out);

// Returns the number of bandwidth samples summarized (0: no DRAM counter, nothing written).
std::size_t write_bandwidth(const TraceRecorder& trace, Tick end, std::ostream& out);

}  // namespace socsim::report::html
