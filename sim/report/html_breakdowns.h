#pragma once
// The HTML report's breakdowns: busy time and energy per unit, time per op type and unit, as
// horizontal SVG bar charts with the numbers beside them (readable without hovering).
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/report/run_report.h"

namespace socsim::report::html {

// Bars sorted as given; values below 0.05% of the largest are left out (listed as "+N smaller").
void write_bar_chart(const std::vector<std::pair<std::string, double>>& rows, const std::string& unit, std::ostream& out);

// "Latency by unit", "Energy by unit", "Time by op type" sections from the report.
void write_breakdowns(const RunReport& r, std::ostream& out);

}  // namespace socsim::report::html
