#include "sim/report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "sim/core/counted.h"
#include "sim/report/json_text.h"
#include "sim/report/html_breakdowns.h"
#include "sim/report/html_timeline.h"
#include "sim/report/html_util.h"

namespace socsim::report {

using html::escape;

namespace {

void write_summary_table(const RunReport& r, std::ostream& out) {
  out << "<table>\n";
  auto rows = headline_metrics(r);
  rows.push_back({"DRAM traffic", r.dram_bytes / 1e9, "GB"});
  rows.push_back({"DRAM bandwidth, average", r.dram_avg_gbps, "GB/s"});
  rows.push_back({"DRAM bandwidth, peak", r.dram_peak_gbps, "GB/s"});
  for (const auto& h : rows) {
    if (h.value) out << fmt::format("<tr><th>{}</th><td class='num'>{:.3f}</td><td>{}</td></tr>\n", h.label, *h.value, h.unit);
  }
  out << "</table>\n";
}

}  // namespace

void write_html_report(const RunReport& r, const TraceRecorder& trace, const HtmlInputs& inputs, std::ostream& out) {
  Tick end = 0;
  for (const auto& s : trace.spans()) end = std::max(end, s.end);
  for (const auto& c : trace.counters()) end = std::max(end, c.time);
  out << "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>socsim: " << escape(r.system) << " " << escape(r.model) << " on "
      << escape(r.soc) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}td.num{text-align:right}.small{color:#555;font-size:90%}"
         "pre{background:#f6f6f6;padding:8px;overflow-x:auto}</style>\n"
      << "</head><body>\n";
  out << fmt::format("<h1 id='title'>socsim: {} on {}</h1>\n", escape(r.model), escape(r.soc));
  std::string workload = fmt::format("prompt {} tokens, decode {}, batch {}", r.prompt_tokens, r.decode_tokens, r.batch);
  if (r.extra.contains("workload")) {
    const auto& w = r.extra["workload"];
    workload = fmt::format("workload {} ({} back to back; in total: {})", w.value("name", std::string("?")), counted(w.value("requests", std::size_t{0}), "request"), workload);
  }
  out << fmt::format("<p>system <b>{}</b>, {} mode, {}, seed {}</p>\n", escape(r.system), escape(r.mode), escape(workload), r.seed);
  for (const auto& n : r.notes) out << "<p><i>note: " << escape(n) << "</i></p>\n";
  out << "<h2>Summary</h2>\n";
  write_summary_table(r, out);
  html::write_breakdowns(r, out);

  out << "<h2>Timeline</h2>\n";
  std::ostringstream gantt;
  const auto stats = html::write_gantt(trace, end, gantt);
  out << fmt::format("<p class='small'>{} spans on {} tracks, drawn as {} bars: spans less than a pixel apart are merged "
                     "(hover a bar for what it holds). trace.json has every span (open it in ui.perfetto.dev).</p>\n",
                     stats.spans, stats.tracks, stats.bars);
  out << gantt.str();
  std::ostringstream bw;
  if (const auto samples = html::write_bandwidth(trace, end, bw); samples > 0) {
    out << "<h2>DRAM bandwidth</h2>\n"
        << fmt::format("<p class='small'>{} samples, averaged per 2-pixel column (blue); red: the highest value in each column.</p>\n", samples)
        << bw.str();
  }

  out << "<h2>Inputs</h2>\n";
  out << "<details><summary>model</summary><pre>" << escape(inputs.model_text) << "</pre></details>\n";
  if (r.extra.contains("system_info")) {
    out << "<details><summary>system decisions (system_info)</summary><pre>" << escape(json_text(r.extra["system_info"], 1)) << "</pre></details>\n";
  }
  out << "<details><summary>SoC description (resolved, with --set overrides)</summary><pre>" << escape(inputs.soc_yaml) << "</pre></details>\n";
  out << "<details><summary>summary as printed</summary><pre>" << escape(summary_text(r)) << "</pre></details>\n";
  out << "</body></html>\n";
}

}  // namespace socsim::report
