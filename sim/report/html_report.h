#pragma once
// A self-contained HTML page for one run: what ran (SoC, model, workload, system), the summary,
// latency and energy breakdowns by unit and op type, a per-track Gantt chart (SVG) and DRAM
// bandwidth over time. No scripts or external resources: it opens anywhere, offline. Timelines
// are aggregated at pixel resolution so long runs stay a few hundred kilobytes (html_timeline.h).
#include <ostream>
#include <string>

#include "sim/report/run_report.h"
#include "sim/report/trace.h"

namespace socsim::report {

struct HtmlInputs {
  std::string soc_yaml;     // the resolved SoC description
  std::string model_text;   // the model's dimensions, one "key: value" per line
};

void write_html_report(const RunReport& report, const TraceRecorder& trace, const HtmlInputs& inputs, std::ostream& out);

}  // namespace socsim::report
