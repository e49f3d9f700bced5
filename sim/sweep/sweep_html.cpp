#include "sim/sweep/sweep_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "sim/report/html_util.h"

namespace socsim::sweep {

namespace {

using report::html::colour;
using report::html::escape;

// Distinct values of column `c` in the order runs first show them (grid order).
std::vector<std::string> axis_values(const SweepResults& r, std::size_t c) {
  std::vector<std::string> v;
  for (const auto& row : r.rows) {
    if (std::find(v.begin(), v.end(), row.values[c]) == v.end()) v.push_back(row.values[c]);
  }
  return v;
}

// "npu.clock=1GHz, system=llm-npu": the other columns' values of a row.
std::string series_label(const SweepResults& r, const ResultRow& row, std::size_t axis) {
  std::string s;
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    if (c == axis) continue;
    s += (s.empty() ? "" : ", ") + r.columns[c] + "=" + (row.values[c].empty() ? "(unset)" : row.values[c]);
  }
  return s.empty() ? "all runs" : s;
}

std::string number(double v) { return fmt::format("{:.4g}", v); }

struct Series {
  std::string label;
  std::vector<std::pair<std::size_t, double>> points;  // x index, value
};

// One line chart: x = the axis's values (evenly spaced, in grid order), y = the metric.
void chart(const SweepResults& r, std::size_t metric, std::size_t axis, std::ostream& out) {
  const auto xs = axis_values(r, axis);
  std::map<std::string, Series> by_label;
  std::vector<std::string> order;
  std::size_t skipped_failed = 0;
  for (const auto& row : r.rows) {
    if (!row.error.empty()) {
      ++skipped_failed;
      continue;
    }
    if (!row.metrics[metric]) continue;
    const std::string label = series_label(r, row, axis);
    auto [it, fresh] = by_label.emplace(label, Series{label, {}});
    if (fresh) order.push_back(label);
    const std::size_t x = static_cast<std::size_t>(std::find(xs.begin(), xs.end(), row.values[axis]) - xs.begin());
    it->second.points.push_back({x, *row.metrics[metric]});
  }
  out << "<h3>" << escape(r.metrics[metric]) << " against " << escape(r.columns[axis]) << "</h3>\n";
  if (order.empty()) {
    out << "<p class=\"note\">no run reported this metric</p>\n";
    return;
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& label : order) {
    for (const auto& [x, y] : by_label[label].points) {
      lo = std::min(lo, y);
      hi = std::max(hi, y);
    }
  }
  // From zero when the values are all positive and not far from it (a bar-chart reading); else
  // the values' own range, padded, so small differences show.
  if (lo > 0 && lo < 0.5 * hi) lo = 0;
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    lo -= 0.5 * std::max(1.0, std::fabs(lo));
    hi += 0.5 * std::max(1.0, std::fabs(hi));
  } else if (lo != 0) {
    const double pad = 0.05 * (hi - lo);
    lo -= pad;
    hi += pad;
  }
  const double w = 640, h = 300, left = 70, right = 20, top = 15, bottom = 45;
  const double pw = w - left - right, ph = h - top - bottom;
  const auto px = [&](std::size_t x) { return left + (xs.size() == 1 ? pw / 2 : pw * static_cast<double>(x) / static_cast<double>(xs.size() - 1)); };
  const auto py = [&](double y) { return top + ph * (1 - (y - lo) / (hi - lo)); };
  out << fmt::format("<svg width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">\n", w, h, w, h);
  out << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444\"/>\n", left, top + ph, left + pw, top + ph);
  out << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444\"/>\n", left, top, left, top + ph);
  for (int t = 0; t <= 4; ++t) {
    const double y = lo + (hi - lo) * t / 4.0;
    out << fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{}</text>\n",
                       left, py(y), left + pw, py(y), left - 4, py(y) + 4, escape(number(y)));
  }
  for (std::size_t x = 0; x < xs.size(); ++x) {
    out << fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{}</text>\n", px(x), top + ph + 16,
                       escape(xs[x].empty() ? "(unset)" : xs[x]));
  }
  out << fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}</text>\n", left + pw / 2, h - 6,
                     escape(r.columns[axis]));
  const std::size_t shown = std::min(order.size(), kMaxSeries);
  for (std::size_t s = 0; s < shown; ++s) {
    auto pts = by_label[order[s]].points;
    std::sort(pts.begin(), pts.end());
    std::string poly;
    for (const auto& [x, y] : pts) poly += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    out << fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", colour(s), poly);
    for (const auto& [x, y] : pts) {
      out << fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}={}: {} = {}</title></circle>\n", px(x), py(y),
                         colour(s), escape(r.columns[axis]), escape(xs[x]), escape(r.metrics[metric]), escape(number(y)));
    }
  }
  out << "</svg>\n<ul class=\"legend\">";
  for (std::size_t s = 0; s < shown; ++s) {
    out << fmt::format("<li><span style=\"background:{}\"></span>{}</li>", colour(s), escape(order[s]));
  }
  out << "</ul>\n";
  if (order.size() > shown) {
    out << fmt::format("<p class=\"note\">{} more lines not drawn (at most {} per chart); results.csv has every run</p>\n",
                       order.size() - shown, kMaxSeries);
  }
  if (skipped_failed > 0) out << fmt::format("<p class=\"note\">{} failed runs not drawn</p>\n", skipped_failed);
}

}  // namespace

void write_sweep_html(const SweepResults& r, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>sweep " << escape(r.name) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}h3{margin:1.6em 0 .3em}"
         ".note{color:#666;font-size:90%}.legend{list-style:none;padding:0;font-size:90%}.legend li{margin:.15em 0}"
         ".legend span{display:inline-block;width:1em;height:.7em;margin-right:.5em}"
         "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style>\n"
      << "</head><body>\n<h1 id=\"title\">sweep " << escape(r.name) << "</h1>\n";
  const std::size_t failed = failed_runs(r);
  out << fmt::format("<p>{} runs of {} (shard {}), spec <code>{}</code>, fingerprint {:016x}{}.</p>\n", r.rows.size(), r.runs_total,
                     escape(r.shard), escape(r.spec), r.fingerprint,
                     failed > 0 ? fmt::format("; <b>{} failed</b> (see results.csv's error column)", failed) : std::string());
  // An axis is worth a chart when it takes two or more values.
  std::vector<std::size_t> axes;
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    if (axis_values(r, c).size() >= 2) axes.push_back(c);
  }
  if (axes.empty()) {
    out << "<p class=\"note\">no key takes two values in these runs: nothing to plot (results.csv has the numbers)</p>\n";
  }
  std::size_t charts = 0, left_out = 0;
  for (std::size_t m = 0; m < r.metrics.size(); ++m) {
    for (const std::size_t a : axes) {
      if (charts == kMaxCharts) {
        ++left_out;
        continue;
      }
      chart(r, m, a, out);
      ++charts;
    }
  }
  if (left_out > 0) {
    out << fmt::format("<p class=\"note\">{} more charts not drawn (at most {}); results.csv has every run</p>\n", left_out, kMaxCharts);
  }
  out << "</body></html>\n";
}

}  // namespace socsim::sweep
