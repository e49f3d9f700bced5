// The shipped sweep's report.html as people open it: every metric against both keys, and rendered
// by headless Chromium (when /usr/bin/chromium exists; skipped with a message otherwise).
#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

TEST(CliSweepReport, ShippedSweepPlotsEveryMetricAgainstEachKeyAndRenders) {
  const auto dir = scratch_dir("sweep_report");
  const auto r = run_socsim("sweep --spec tcm-x-npu-freq --jobs 2 --out '" + (dir / "o").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("report.html"), std::string::npos) << r.out;
  const auto html = read_file(dir / "o" / "report.html");
  for (const char* h : {"<h3>ttft_ms against npu.tcm</h3>", "<h3>ttft_ms against npu.clock</h3>"}) {
    EXPECT_NE(html.find(h), std::string::npos) << h;
  }
  EXPECT_NE(html.find(">npu.clock=1GHz</li>"), std::string::npos);
  // Merged shards get one too.
  ASSERT_EQ(run_socsim("sweep --spec tcm-x-npu-freq --shard 0/2 --out '" + (dir / "a").string() + "'").exit_code, 0);
  ASSERT_EQ(run_socsim("sweep --spec tcm-x-npu-freq --shard 1/2 --out '" + (dir / "b").string() + "'").exit_code, 0);
  ASSERT_EQ(run_socsim("sweep merge --out '" + (dir / "m").string() + "' '" + (dir / "a").string() + "' '" + (dir / "b").string() + "'").exit_code, 0);
  const auto merged = read_file(dir / "m" / "report.html");
  EXPECT_NE(merged.find("(shard merged)"), std::string::npos);
  EXPECT_EQ(merged.substr(merged.find("<h3>")), html.substr(html.find("<h3>")));  // same charts as one sweep's

  const char* chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium)) GTEST_SKIP() << chromium << " not found: install the Debian package `chromium` to check that report.html renders";
  const auto dom = dir / "dom.html";
  const std::string cmd = std::string(chromium) + " --headless --no-sandbox --disable-gpu --dump-dom 'file://" +
                          (dir / "o" / "report.html").string() + "' > '" + dom.string() + "' 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const auto rendered = read_file(dom);
  EXPECT_NE(rendered.find("id=\"title\""), std::string::npos);
  EXPECT_NE(rendered.find("<polyline"), std::string::npos);
  EXPECT_NE(rendered.find("<circle"), std::string::npos);
}

}  // namespace
}  // namespace socsim::test
