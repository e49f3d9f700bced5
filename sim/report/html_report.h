#pragma once
// A self-contained HTML page for one run: summary table, per-track Gantt chart (SVG) and DRAM
// bandwidth over time. No scripts or external resources: it opens anywhere, offline.
#include <ostream>
#include <string>

#include "sim/report/run_report.h"
#include "sim/report/trace.h"

namespace socsim::report {

void write_html_report(const RunReport& report, const TraceRecorder& trace, const std::string& soc_yaml,
                       std::ostream& out);

}  // namespace socsim::report
