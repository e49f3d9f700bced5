#include "sim/report/html_breakdowns.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/report/html_util.h"

namespace socsim::report::html {

void write_bar_chart(const std::vector<std::pair<std::string, double>>& rows, const std::string& unit, std::ostream& out) {
  double vmax = 0;
  for (const auto& r : rows) vmax = std::max(vmax, r.second);
  std::vector<std::pair<std::string, double>> shown;
  for (const auto& r : rows) {
    if (r.second == 0 || (vmax > 0 && r.second >= vmax * 5e-4)) shown.push_back(r);
  }
  const double label = 190, width = 480, row = 18;
  out << fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif'>\n", label + width + 140,
                     row * static_cast<double>(shown.size()) + 4);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const double y = row * static_cast<double>(i);
    const double w = vmax == 0 ? 0 : shown[i].second / vmax * width;
    out << fmt::format("<text x='0' y='{:.1f}' font-size='12'>{}</text><rect x='{}' y='{:.1f}' width='{:.2f}' height='{}' fill='{}'/>"
                       "<text x='{:.1f}' y='{:.1f}' font-size='12'>{:.4g} {}</text>\n",
                       y + 13, escape(shown[i].first), label, y + 2, std::max(0.5, w), row - 4, colour(i), label + w + 6, y + 13, shown[i].second,
                       escape(unit));
  }
  out << "</svg>\n";
  if (shown.size() < rows.size()) out << fmt::format("<p class='small'>+{} smaller entries not drawn</p>\n", rows.size() - shown.size());
}

namespace {

std::vector<std::pair<std::string, double>> sorted_numbers(const nlohmann::ordered_json& obj) {
  std::vector<std::pair<std::string, double>> v;
  for (const auto& [k, x] : obj.items()) {
    if (x.is_number()) v.emplace_back(k, x.get<double>());
  }
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

}  // namespace

void write_breakdowns(const RunReport& r, std::ostream& out) {
  out << "<h2>Latency by unit</h2>\n<p class='small'>Busy time of each unit over the run (units work in parallel, so these overlap; "
         "the run took "
      << fmt::format("{:.3f}", r.simulated_ms) << " ms of simulated time).</p>\n";
  std::vector<std::pair<std::string, double>> busy;
  for (const auto& u : r.units) busy.emplace_back(u.name, u.busy_ms);
  write_bar_chart(busy, "ms", out);

  out << "<h2>Energy by unit</h2>\n";
  if (r.extra.contains("energy_breakdown_j")) {
    write_bar_chart(sorted_numbers(r.extra["energy_breakdown_j"]), "J", out);
  } else {
    std::vector<std::pair<std::string, double>> e;
    for (const auto& u : r.units) {
      if (u.energy_j) e.emplace_back(u.name, *u.energy_j);
    }
    write_bar_chart(e, "J", out);
  }
  if (r.extra.contains("average_power_w")) out << fmt::format("<p>average power {:.3f} W</p>\n", r.extra["average_power_w"].get<double>());

  if (!r.extra.contains("op_time_ms")) return;
  out << "<h2>Time by op type</h2>\n<p class='small'>Busy time per op type on each unit (summed over jobs; concurrent jobs on one unit each count).</p>\n";
  for (const auto& [unit, ops] : r.extra["op_time_ms"].items()) {
    out << "<h3>" << escape(unit) << "</h3>\n";
    write_bar_chart(sorted_numbers(ops), "ms", out);
  }
}

}  // namespace socsim::report::html
