#include "sim/report/html_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/report/html_util.h"

namespace socsim::report::html {

namespace {

constexpr double kLabel = 110;  // px left of the time axis for track names
constexpr double kRow = 20;

int unit_rank(const std::string& track) {
  static const char* kOrder[] = {"npu", "gpu", "cpu", "storage", "dram"};
  for (int i = 0; i < 5; ++i) {
    if (track.rfind(kOrder[i], 0) == 0) return i;
  }
  return 5;
}

void write_axis(double y, Tick end, std::ostream& out) {
  for (int i = 0; i <= 5; ++i) {
    const double x = kLabel + kChartWidth * i / 5;
    // The last label ends at the axis's end so it is not clipped by the SVG's edge.
    out << fmt::format("<line x1='{:.1f}' y1='0' x2='{:.1f}' y2='{:.1f}' stroke='#ddd'/><text x='{:.1f}' y='{:.1f}' font-size='11' text-anchor='{}'>{}</text>\n", x, x, y, x,
                       y + 14, i == 5 ? "end" : "middle", escape(time_label(to_ms(end) * i / 5)));
  }
}

// One bar of merged spans: where it is and what it holds, for the tooltip.
struct Bar {
  Tick start = 0, end = 0, busy = 0;
  std::size_t count = 0;
  std::map<std::string, Tick> by_name;
};

std::string tooltip(const Bar& b) {
  if (b.count == 1) return fmt::format("{} {:.4f}-{:.4f} ms", b.by_name.begin()->first, to_ms(b.start), to_ms(b.end));
  std::vector<std::pair<Tick, std::string>> top;
  for (const auto& [n, t] : b.by_name) top.emplace_back(t, n);
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& c) { return a.first != c.first ? a.first > c.first : a.second < c.second; });
  std::string s = fmt::format("{} spans merged, {:.4f}-{:.4f} ms, busy {:.4f} ms:", b.count, to_ms(b.start), to_ms(b.end), to_ms(b.busy));
  for (std::size_t i = 0; i < std::min<std::size_t>(3, top.size()); ++i) {
    s += fmt::format(" {} {:.0f}%", top[i].second, b.busy == 0 ? 0.0 : 100.0 * static_cast<double>(top[i].first) / static_cast<double>(b.busy));
  }
  if (top.size() > 3) s += fmt::format(" (+{} more kinds)", top.size() - 3);
  return s;
}

}  // namespace

GanttStats write_gantt(const TraceRecorder& trace, Tick end, std::ostream& out) {
  std::map<std::string, std::vector<const TraceSpan*>> by_track;
  for (const auto& s : trace.spans()) by_track[s.track].push_back(&s);
  std::vector<std::string> tracks;
  for (const auto& [t, v] : by_track) tracks.push_back(t);
  std::stable_sort(tracks.begin(), tracks.end(), [](const auto& a, const auto& b) { return unit_rank(a) < unit_rank(b); });

  GanttStats stats;
  stats.tracks = tracks.size();
  stats.spans = trace.spans().size();
  const double scale = end == 0 ? 0 : kChartWidth / static_cast<double>(end);
  const double height = kRow * static_cast<double>(tracks.size());
  out << fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif'>\n", kLabel + kChartWidth + 10, height + 20);
  write_axis(height, end, out);
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const double y = kRow * static_cast<double>(i);
    out << fmt::format("<text x='0' y='{:.1f}' font-size='12'>{}</text>\n", y + 14, escape(tracks[i]));
    auto spans = by_track[tracks[i]];
    std::stable_sort(spans.begin(), spans.end(), [](const TraceSpan* a, const TraceSpan* b) { return a->start < b->start; });
    const auto emit = [&](const Bar& b) {
      ++stats.bars;
      out << fmt::format("<rect x='{:.2f}' y='{:.1f}' width='{:.2f}' height='{}' fill='{}'><title>{}</title></rect>\n",
                         kLabel + static_cast<double>(b.start) * scale, y + 3, std::max(0.5, static_cast<double>(b.end - b.start) * scale), kRow - 6,
                         colour(static_cast<std::size_t>(unit_rank(tracks[i])) * 2 + (i % 2)), escape(tooltip(b)));
    };
    Bar bar;
    for (const TraceSpan* s : spans) {
      // Merge when the gap to the open bar is under one pixel: the eye could not tell them apart.
      if (bar.count > 0 && static_cast<double>(s->start) * scale < static_cast<double>(bar.end) * scale + 1.0) {
        bar.end = std::max(bar.end, s->end);
      } else {
        if (bar.count > 0) emit(bar);
        bar = Bar{s->start, s->end, 0, 0, {}};
      }
      ++bar.count;
      bar.busy += s->end - s->start;
      bar.by_name[s->name] += s->end - s->start;
    }
    if (bar.count > 0) emit(bar);
  }
  out << "</svg>\n";
  return stats;
}

std::size_t write_bandwidth(const TraceRecorder& trace, Tick end, std::ostream& out) {
  std::vector<const TraceCounter*> pts;
  for (const auto& c : trace.counters()) {
    if (c.track == "dram.bandwidth_gbps") pts.push_back(&c);
  }
  if (pts.empty() || end == 0) return 0;
  // The counter is a step function (each sample holds until the next): integrate it per column.
  const std::size_t columns = static_cast<std::size_t>(kChartWidth / 2);
  const double col_ps = static_cast<double>(end) / static_cast<double>(columns);
  std::vector<double> area(columns, 0), peak(columns, 0);
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const double t0 = static_cast<double>(pts[k]->time);
    const double t1 = k + 1 < pts.size() ? static_cast<double>(pts[k + 1]->time) : static_cast<double>(end);
    const double v = pts[k]->value;
    if (t1 <= t0) continue;
    auto c0 = std::min(columns - 1, static_cast<std::size_t>(t0 / col_ps));
    const auto c1 = std::min(columns - 1, static_cast<std::size_t>(t1 / col_ps));
    for (auto c = c0; c <= c1; ++c) {
      const double lo = std::max(t0, static_cast<double>(c) * col_ps), hi = std::min(t1, static_cast<double>(c + 1) * col_ps);
      if (hi > lo) area[c] += v * (hi - lo);
      if (hi >= lo) peak[c] = std::max(peak[c], v);
    }
  }
  double vmax = 1;
  for (double p : peak) vmax = std::max(vmax, p);
  const double h = 160, w = kChartWidth;
  const auto y = [&](double v) { return h - v / vmax * h; };
  out << fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif'>\n", kLabel + w + 10, h + 20);
  write_axis(h, end, out);
  std::string avg = fmt::format("{:.1f},{:.1f} ", kLabel, h), top;
  for (std::size_t c = 0; c < columns; ++c) {
    const double x0 = kLabel + w * static_cast<double>(c) / static_cast<double>(columns), x1 = kLabel + w * static_cast<double>(c + 1) / static_cast<double>(columns);
    const double a = area[c] / col_ps;
    avg += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", x0, y(a), x1, y(a));
    top += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", x0, y(peak[c]), x1, y(peak[c]));
  }
  avg += fmt::format("{:.1f},{:.1f}", kLabel + w, h);
  out << "<polygon fill='#4e79a7' fill-opacity='0.5' stroke='#4e79a7' points='" << avg << "'/>\n";
  out << "<polyline fill='none' stroke='#e15759' stroke-width='0.8' points='" << top << "'/>\n";
  out << fmt::format("<text x='0' y='12' font-size='11'>{:.1f} GB/s</text><text x='0' y='{}' font-size='11'>0</text>\n", vmax, h);
  out << "</svg>\n";
  return pts.size();
}

}  // namespace socsim::report::html
