#include "sim/report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace socsim::report {

namespace {

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// A fixed palette indexed by track so colours are stable between runs.
const char* colour(std::size_t i) {
  static const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};
  return kPalette[i % 8];
}

void write_gantt(const TraceRecorder& trace, Tick end, std::ostream& out) {
  std::vector<std::string> tracks;
  for (const auto& s : trace.spans()) {
    if (std::find(tracks.begin(), tracks.end(), s.track) == tracks.end()) tracks.push_back(s.track);
  }
  const double width = 900, label = 120, row = 22;
  const double scale = end == 0 ? 0 : (width - label) / static_cast<double>(end);
  out << fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}'>\n", width,
                     row * static_cast<double>(tracks.size()) + 30);
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    out << fmt::format("<text x='0' y='{}' font-size='12'>{}</text>\n", row * static_cast<double>(i) + 15,
                       escape(tracks[i]));
  }
  for (const auto& s : trace.spans()) {
    const auto i = static_cast<std::size_t>(std::find(tracks.begin(), tracks.end(), s.track) - tracks.begin());
    out << fmt::format("<rect x='{:.2f}' y='{}' width='{:.2f}' height='{}' fill='{}'><title>{} {:.3f}-{:.3f} ms</title></rect>\n",
                       label + static_cast<double>(s.start) * scale, row * static_cast<double>(i) + 3,
                       std::max(0.5, static_cast<double>(s.end - s.start) * scale), row - 6, colour(i), escape(s.name),
                       to_ms(s.start), to_ms(s.end));
  }
  out << fmt::format("<text x='{}' y='{}' font-size='11'>0 ms</text><text x='{}' y='{}' font-size='11' text-anchor='end'>{:.3f} ms</text>\n",
                     label, row * static_cast<double>(tracks.size()) + 20, width, row * static_cast<double>(tracks.size()) + 20, to_ms(end));
  out << "</svg>\n";
}

void write_bandwidth(const TraceRecorder& trace, Tick end, std::ostream& out) {
  std::vector<const TraceCounter*> pts;
  double vmax = 1;
  for (const auto& c : trace.counters()) {
    if (c.track == "dram.bandwidth_gbps") pts.push_back(&c), vmax = std::max(vmax, c.value);
  }
  if (pts.empty()) return;
  const double width = 900, height = 160, scale = end == 0 ? 0 : (width - 40) / static_cast<double>(end);
  out << fmt::format("<h2>DRAM bandwidth</h2>\n<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}'>\n<polyline fill='none' stroke='#4e79a7' points='", width, height + 20);
  double last = 0;
  for (const auto* p : pts) {
    const double x = 40 + static_cast<double>(p->time) * scale;
    out << fmt::format("{:.2f},{:.2f} {:.2f},{:.2f} ", x, height - last / vmax * height, x, height - p->value / vmax * height);
    last = p->value;
  }
  out << fmt::format("{:.2f},{:.2f}'/>\n<text x='0' y='12' font-size='11'>{:.1f} GB/s</text><text x='0' y='{}' font-size='11'>0</text></svg>\n",
                     width, height - last / vmax * height, vmax, height);
}

}  // namespace

void write_html_report(const RunReport& r, const TraceRecorder& trace, const std::string& soc_yaml, std::ostream& out) {
  Tick end = 0;
  for (const auto& s : trace.spans()) end = std::max(end, s.end);
  for (const auto& c : trace.counters()) end = std::max(end, c.time);
  out << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>socsim report</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}</style>\n"
      << "</head><body>\n";
  out << fmt::format("<h1>socsim: {} on {}</h1>\n<p>system <b>{}</b>, {} mode, prompt {} tokens, decode {}, batch {}</p>\n",
                     escape(r.model), escape(r.soc), escape(r.system), escape(r.mode), r.prompt_tokens, r.decode_tokens, r.batch);
  for (const auto& n : r.notes) out << "<p><i>note: " << escape(n) << "</i></p>\n";
  out << "<h2>Summary</h2>\n<pre>" << escape(summary_text(r)) << "</pre>\n";
  out << "<h2>Timeline</h2>\n";
  write_gantt(trace, end, out);
  write_bandwidth(trace, end, out);
  out << "<h2>SoC description (resolved)</h2>\n<pre>" << escape(soc_yaml) << "</pre>\n</body></html>\n";
}

}  // namespace socsim::report
