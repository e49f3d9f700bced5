// report.html as people open it: bounded in size for a longer run, and rendered by headless
// Chromium (when /usr/bin/chromium exists; skipped with a message otherwise).
#include <cstdio>

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

const char* kChromium = "/usr/bin/chromium";

std::filesystem::path make_report(const std::string& name, const std::string& lengths) {
  const auto dir = scratch_dir(name);
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system llm-npu " + lengths + " --report-dir '" + dir.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

TEST(CliReportHtml, LongerRunStaysSmallAndSaysWhatWasMerged) {
  const auto dir = make_report("report_size", "--prompt 256 --decode 8");
  const auto html = read_file(dir / "report.html");
  EXPECT_LT(html.size(), 1'000'000u) << "report.html grew to " << html.size() << " bytes";
  EXPECT_NE(html.find("spans less than a pixel apart are merged"), std::string::npos);
  for (const char* s : {"<h2>Latency by unit</h2>", "<h2>Energy by unit</h2>", "<h2>Time by op type</h2>", "<h2>DRAM bandwidth</h2>",
                        "<summary>model</summary>", "layers: 24"}) {
    EXPECT_NE(html.find(s), std::string::npos) << s;
  }
}

TEST(CliReportHtml, RendersInHeadlessChromium) {
  if (!std::filesystem::exists(kChromium)) {
    GTEST_SKIP() << kChromium << " not found: install the Debian package `chromium` to check that report.html renders";
  }
  const auto dir = make_report("report_render", "--prompt 64 --decode 2");
  const auto dom = dir / "dom.html";
  const std::string cmd = std::string(kChromium) + " --headless --no-sandbox --disable-gpu --dump-dom 'file://" + (dir / "report.html").string() +
                          "' > '" + dom.string() + "' 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const auto rendered = read_file(dom);
  // The DOM as Chromium built it: the title, every chart parsed as SVG elements.
  EXPECT_NE(rendered.find("id=\"title\""), std::string::npos) << rendered.substr(0, 500);
  EXPECT_NE(rendered.find("<svg"), std::string::npos);
  EXPECT_NE(rendered.find("<rect"), std::string::npos);
  EXPECT_NE(rendered.find("<polygon"), std::string::npos);
  // A screenshot renders the page for real (layout + paint), not only parses it.
  const auto png = dir / "shot.png";
  const std::string shot = std::string(kChromium) + " --headless --no-sandbox --disable-gpu --window-size=1280,2000 --screenshot='" + png.string() +
                           "' 'file://" + (dir / "report.html").string() + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(shot.c_str()), 0) << shot;
  EXPECT_GT(std::filesystem::file_size(png), 10'000u);
}

}  // namespace
}  // namespace socsim::test
