// A sweep's report.html: a chart per metric and varied key, a line per combination of the other
// keys, failed runs left out and said so, bounded lines per chart.
#include "sim/sweep/sweep_html.h"

#include <gtest/gtest.h>

#include <sstream>

namespace socsim::sweep {
namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

SweepResults grid(std::size_t a_values, std::size_t b_values) {
  SweepResults r;
  r.name = "g";
  r.spec = "g.yaml";
  r.shard = "0/1";
  r.columns = {"npu.tcm", "seed"};
  r.metrics = {"ttft_ms", "energy_j"};
  for (std::size_t a = 0; a < a_values; ++a) {
    for (std::size_t b = 0; b < b_values; ++b) {
      ResultRow row;
      row.run = r.rows.size();
      row.values = {std::to_string(a) + "MiB", std::to_string(b)};
      row.metrics = {100.0 + static_cast<double>(a * 10 + b), std::nullopt};
      r.rows.push_back(row);
    }
  }
  r.runs_total = r.rows.size();
  return r;
}

std::string html_of(const SweepResults& r) {
  std::ostringstream o;
  write_sweep_html(r, o);
  return o.str();
}

TEST(SweepHtml, AChartPerMetricAndKeyALinePerOtherValues) {
  auto r = grid(3, 2);
  r.rows[4].error = "out of memory <here>";
  r.rows[4].metrics = {std::nullopt, std::nullopt};
  const auto h = html_of(r);
  // 2 metrics x 2 keys; energy_j was never reported.
  EXPECT_EQ(count(h, "<h3>"), 4u);
  EXPECT_NE(h.find("<h3>ttft_ms against npu.tcm</h3>"), std::string::npos);
  EXPECT_NE(h.find("<h3>ttft_ms against seed</h3>"), std::string::npos);
  EXPECT_EQ(count(h, "no run reported this metric"), 2u);
  // ttft_ms against npu.tcm: a line per seed (2), against seed: a line per TCM size (3).
  EXPECT_EQ(count(h, "<polyline"), 5u);
  EXPECT_NE(h.find(">seed=0</li>"), std::string::npos);
  EXPECT_NE(h.find(">npu.tcm=2MiB</li>"), std::string::npos);
  // The failed run is not drawn, and the page says so (escaped nowhere needed: no message shown).
  EXPECT_EQ(count(h, "<circle"), 2u * 5u);
  EXPECT_NE(h.find("1 failed runs not drawn"), std::string::npos);
  EXPECT_NE(h.find("<b>1 failed</b>"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);  // self-contained, no scripts
}

TEST(SweepHtml, LinesPerChartAreBoundedAndSingleValuedKeysNotPlotted) {
  const auto h = html_of(grid(2, kMaxSeries + 5));
  EXPECT_NE(h.find("5 more lines not drawn"), std::string::npos);
  auto one = grid(1, 1);
  const auto h1 = html_of(one);
  EXPECT_EQ(count(h1, "<svg"), 0u);
  EXPECT_NE(h1.find("nothing to plot"), std::string::npos);
}

}  // namespace
}  // namespace socsim::sweep
