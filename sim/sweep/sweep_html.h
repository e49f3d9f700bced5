#pragma once
// report.html of a sweep: each metric plotted against each varied key (one line per combination
// of the other keys' values), so a what-if study reads at a glance instead of from the CSV.
// Self-contained like a run's report (inline SVG and CSS, no scripts, no network) and bounded:
// at most kMaxCharts charts and kMaxSeries lines per chart, saying what was left out.
#include <cstddef>
#include <ostream>

#include "sim/sweep/sweep_results.h"

namespace socsim::sweep {

inline constexpr std::size_t kMaxCharts = 60;
inline constexpr std::size_t kMaxSeries = 10;

void write_sweep_html(const SweepResults& r, std::ostream& out);

}  // namespace socsim::sweep
