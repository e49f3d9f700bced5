// `socsim validate` end to end on small claims files (tests/data/validation/) that use only
// `run` claims with metrics that exist today (prompt_tokens, dram.bytes), and `serve` claims.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

std::string claims_file(const std::string& name) {
  return "'" + std::string(SOCSIM_TEST_DATA_DIR) + "/validation/" + name + "'";
}

std::string last_line(const std::string& out) {
  std::string s = out;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// The row of a claim: the line starting with its id and a space.
std::string row(const std::string& out, const std::string& id) {
  std::size_t pos = 0;
  while ((pos = out.find(id + " ", pos)) != std::string::npos) {
    if (pos == 0 || out[pos - 1] == '\n') return out.substr(pos, out.find('\n', pos) - pos);
    ++pos;
  }
  return "";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(CliValidate, PassingClaimsExit0WithTableAndLastLine) {
  const auto dir = scratch_dir("validate_pass");
  const auto r = run_socsim("validate --claims " + claims_file("passing.yaml") + " --json '" + dir.string() + "/v.json'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("claim ", 0), 0u) << r.out;  // header first
  EXPECT_TRUE(ends_with(row(r.out, "cli.prompt8"), "pass")) << r.out;
  EXPECT_NE(row(r.out, "cli.prompt8-near").find("4.8%"), std::string::npos) << r.out;
  EXPECT_TRUE(ends_with(row(r.out, "cli.dram-info"), "info")) << r.out;
  EXPECT_TRUE(ends_with(row(r.out, "cli.prompt-ratio"), "pass")) << r.out;
  // N and K count informational claims too; the median is over all 4 numbers (0, 0, 4.8, far).
  EXPECT_EQ(last_line(r.out), "claims: 4, within tolerance: 3, median abs error: 2.4%");

  const auto j = nlohmann::json::parse(read_file(dir / "v.json"));
  ASSERT_EQ(j["claims"].size(), 4u);
  EXPECT_EQ(j["claims"][0]["id"], "cli.prompt8");
  EXPECT_EQ(j["claims"][0]["simulated"], 8.0);
  EXPECT_EQ(j["claims"][0]["status"], "pass");
  EXPECT_EQ(j["claims"][2]["informational"], true);
  EXPECT_EQ(j["claims"][2]["status"], "info");
  EXPECT_EQ(j["claims"][3]["simulated"], 2.0);
  EXPECT_EQ(j["summary"]["claims"], 4);
  EXPECT_EQ(j["summary"]["within_tolerance"], 3);
  EXPECT_NEAR(j["summary"]["median_abs_error_pct"].get<double>(), 100.0 * 0.4 / 8.4 / 2, 1e-9);
}

TEST(CliValidate, ClaimOutsideToleranceExits3AndStillWritesJson) {
  const auto dir = scratch_dir("validate_fail");
  const auto r = run_socsim("validate --claims " + claims_file("failing.yaml") + " --json '" + dir.string() + "/v.json'");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // a finding: neither bad input (2) nor a crash (1)
  EXPECT_TRUE(ends_with(row(r.out, "cli.ok"), "pass")) << r.out;
  EXPECT_TRUE(ends_with(row(r.out, "cli.off"), "FAIL")) << r.out;
  EXPECT_NE(row(r.out, "cli.off").find("20.0%"), std::string::npos) << r.out;
  EXPECT_EQ(last_line(r.out), "claims: 2, within tolerance: 1, median abs error: 10.0%");
  // A failing claim is a finding, not bad input: the results file is written.
  const auto j = nlohmann::json::parse(read_file(dir / "v.json"));
  EXPECT_EQ(j["claims"][1]["status"], "FAIL");
}

TEST(CliValidate, UnevaluableClaimsAreErrorRowsNotCrashes) {
  const auto dir = scratch_dir("validate_erroring");
  const auto r = run_socsim("validate --claims " + claims_file("erroring.yaml") + " --json '" + dir.string() + "/v.json'");
  // Both ERRORs are the claims file's fault: bad input, named at file:line and key, no JSON.
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("erroring.yaml:3: claims[0].run: `run "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("erroring.yaml:4: claims[1].metric: metric 'dram.no_such_metric'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "v.json"));
  EXPECT_TRUE(ends_with(row(r.out, "cli.bad-system"), "ERROR")) << r.out;
  EXPECT_NE(r.out.find("claim cli.bad-system: `run "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--system: unknown system 'no-such-system'"), std::string::npos) << r.out;
  EXPECT_TRUE(ends_with(row(r.out, "cli.bad-metric"), "ERROR")) << r.out;
  EXPECT_NE(r.out.find("claim cli.bad-metric: metric 'dram.no_such_metric': no 'no_such_metric' in 'dram' (available: bytes"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(ends_with(row(r.out, "cli.ok"), "pass")) << r.out;
  EXPECT_EQ(last_line(r.out), "claims: 3, within tolerance: 1, median abs error: 0.0%");
}

// serve claims (LLMS) run in-process like run claims, and give what `serve --json` gives.
TEST(CliValidate, ServeClaimsRunTheServiceSimulation) {
  const auto dir = scratch_dir("validate_serve");
  const auto r = run_socsim("validate --claims " + claims_file("serve.yaml") + " --json '" + dir.string() + "/v.json'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(ends_with(row(r.out, "cli.serve.contexts"), "pass")) << r.out;
  EXPECT_TRUE(ends_with(row(r.out, "cli.serve.calls-ratio"), "pass")) << r.out;
  const auto direct = run_socsim(
      "serve --soc snapdragon-8gen3 --model qwen2-0.5b --policy lmk --contexts 6 --hours 2 --memory-budget 40MiB "
      "--set llms.max_context=1024 --json '" + dir.string() + "/serve.json'");
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  const auto serve = nlohmann::json::parse(read_file(dir / "serve.json"));
  const auto v = nlohmann::json::parse(read_file(dir / "v.json"));
  ASSERT_GT(serve["mean_switch_ms"].get<double>(), 0.0);  // the budget forces recomputation
  EXPECT_EQ(v["claims"][0]["simulated"], serve["mean_switch_ms"]);

  const auto bad = run_socsim("validate --claims " + claims_file("serve_bad.yaml"));
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("serve_bad.yaml:3: claims[0].serve: `serve "), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--policy: expected llms, lmk, swap, vllm-s or vllm-sq, got 'nope'"), std::string::npos) << bad.err;
}

TEST(CliValidate, MalformedClaimsFileExits2AndWritesNothing) {
  const auto dir = scratch_dir("validate_malformed");
  const auto r =
      run_socsim("validate --claims " + claims_file("malformed.yaml") + " --json '" + dir.string() + "/v.json'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("malformed.yaml:5: claims[2].id: duplicate claim id 'cli.one'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");  // nothing ran
  EXPECT_FALSE(std::filesystem::exists(dir / "v.json"));
}

TEST(CliValidate, UsageAndMissingOptions) {
  auto r = run_socsim("validate --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("usage: socsim validate --claims FILE.yaml [--json FILE]"), std::string::npos) << r.out;
  r = run_socsim("validate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--claims"), std::string::npos) << r.err;
  r = run_socsim("validate --claims /nonexistent/claims.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/claims.yaml"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace socsim::test
