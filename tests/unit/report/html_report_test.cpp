// The HTML report: every section present, timelines aggregated to a bounded size with the merge
// stated, bandwidth averaged per column, output deterministic.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "sim/report/html_report.h"
#include "sim/report/html_timeline.h"

namespace socsim::report {
namespace {

constexpr Tick ms(std::int64_t n) { return static_cast<Tick>(n) * kMillisecond; }
constexpr Tick us(std::int64_t n) { return static_cast<Tick>(n) * kMicrosecond; }

RunReport small_report() {
  RunReport r;
  r.soc = "snapdragon-8gen3";
  r.model = "qwen2-0.5b";
  r.system = "llm-npu";
  r.mode = "timing";
  r.prompt_tokens = 64;
  r.batch = 1;
  r.ttft_ms = 12.5;
  r.units = {{"npu", 10, 0.1}, {"cpu", 4, 0.2}};
  r.extra["energy_breakdown_j"] = {{"npu", 0.1}, {"cpu", 0.2}, {"dram", 0.05}};
  r.extra["op_time_ms"] = {{"npu", {{"matmul", 9.0}, {"softmax", 1.0}}}, {"cpu", {{"norm", 4.0}}}};
  return r;
}

TEST(HtmlReport, HasEverySectionAndIsDeterministic) {
  TraceRecorder t;
  t.span("npu.hmx", "L0.q/matmul", ms(0), ms(5));
  t.span("cpu.mid0", "norm <&>", ms(1), ms(2));
  t.counter("dram.bandwidth_gbps", ms(0), 30);
  t.counter("dram.bandwidth_gbps", ms(5), 0);
  std::ostringstream a, b;
  write_html_report(small_report(), t, {"npu:\n  tcm: 8 MiB\n", "layers: 24\n"}, a);
  write_html_report(small_report(), t, {"npu:\n  tcm: 8 MiB\n", "layers: 24\n"}, b);
  const std::string page = a.str();
  EXPECT_EQ(page, b.str());
  for (const char* s : {"<h2>Summary</h2>", "<h2>Latency by unit</h2>", "<h2>Energy by unit</h2>", "<h2>Time by op type</h2>", "<h2>Timeline</h2>",
                        "<h2>DRAM bandwidth</h2>", "tcm: 8 MiB", "layers: 24", "system <b>llm-npu</b>", "prompt 64 tokens", "norm &lt;&amp;&gt;"}) {
    EXPECT_NE(page.find(s), std::string::npos) << s;
  }
  EXPECT_EQ(page.find("<script"), std::string::npos);  // self-contained, static
  EXPECT_NE(page.find("2 spans on 2 tracks, drawn as 2 bars"), std::string::npos);
}

TEST(HtmlTimeline, ManySpansMergeIntoBoundedBars) {
  TraceRecorder t;
  // 100000 back-to-back 1 us spans on one track plus a lone span after a long gap.
  for (int i = 0; i < 100000; ++i) t.span("npu.hvx", i % 2 ? "softmax" : "rope", us(i), us(i + 1));
  t.span("npu.hvx", "late", ms(200), ms(201));
  std::ostringstream out;
  const auto stats = html::write_gantt(t, ms(201), out);
  EXPECT_EQ(stats.spans, 100001u);
  EXPECT_EQ(stats.bars, 2u);  // the contiguous run is one bar, the late span another
  EXPECT_NE(out.str().find("100000 spans merged, 0.0000-100.0000 ms, busy 100.0000 ms: rope 50% softmax 50%"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("<title>late 200.0000-201.0000 ms</title>"), std::string::npos);
  EXPECT_LT(out.str().size(), 5000u);
}

TEST(HtmlTimeline, SpansApartByMoreThanAPixelStaySeparate) {
  TraceRecorder t;
  // 1000 px over 1 s: 1 ms per pixel. Spans 10 ms apart are 10 px apart.
  for (int i = 0; i < 10; ++i) t.span("gpu", "k", ms(10 * i), ms(10 * i + 1));
  std::ostringstream out;
  EXPECT_EQ(html::write_gantt(t, ms(100), out).bars, 10u);
}

TEST(HtmlTimeline, BandwidthIsTheTimeWeightedAveragePerColumn) {
  TraceRecorder t;
  // 40 GB/s for the first half, 0 after: the column straddling nothing is 40 or 0, the chart's
  // top label is the peak.
  t.counter("dram.bandwidth_gbps", 0, 40);
  t.counter("dram.bandwidth_gbps", ms(50), 0);
  std::ostringstream out;
  EXPECT_EQ(html::write_bandwidth(t, ms(100), out), 2u);
  EXPECT_NE(out.str().find(">40.0 GB/s<"), std::string::npos);
  // The polygon has one flat segment per column: 500 columns, y = 0 (top) for 40 GB/s.
  const std::string s = out.str();
  const std::regex seg("110\\.0,0\\.0 112\\.0,0\\.0");
  EXPECT_TRUE(std::regex_search(s, seg)) << s.substr(0, 600);
  EXPECT_NE(s.find("1110.0,160.0"), std::string::npos);  // ends at 0 GB/s at the right edge
}

}  // namespace
}  // namespace socsim::report
