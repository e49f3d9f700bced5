// The table and the --json document built from claim results.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/validation/claim_report.h"

namespace socsim::validation {
namespace {

std::vector<ClaimResult> sample() {
  ClaimResult pass;
  pass.id = "llmnpu.t3.npu-int8.64x2048x2048";
  pass.source = "llm.npu Table 3";
  pass.expected = 0.9;
  pass.simulated = 0.873456;
  pass.relative_error = 0.02949;
  pass.tolerance = 0.3;
  pass.status = Status::kPass;
  ClaimResult error;
  error.id = "b";
  error.source = "s";
  error.expected = 252;
  error.tolerance = 0.3;
  error.informational = true;
  error.status = Status::kError;
  error.message = "claim b: `microbench`: error: not built yet";
  return {pass, error};
}

TEST(ClaimReport, FormatValue) {
  EXPECT_EQ(format_value(0.9), "0.9");
  EXPECT_EQ(format_value(12032.5), "12032.5");
  EXPECT_EQ(format_value(268435456), "268435456");
  EXPECT_EQ(format_value(0.873456), "0.873456");
  EXPECT_EQ(format_value(1.23456789), "1.23457");
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(2e-6), "2e-06");
}

TEST(ClaimReport, TableHasOneRowPerClaimAndErrorMessages) {
  std::ostringstream os;
  print_table(sample(), os);
  const std::string t = os.str();
  std::istringstream lines(t);
  std::string header, row1, row2, message;
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  std::getline(lines, message);
  EXPECT_NE(header.find("claim"), std::string::npos);
  EXPECT_NE(header.find("expected"), std::string::npos);
  EXPECT_NE(header.find("simulated"), std::string::npos);
  EXPECT_NE(header.find("rel err"), std::string::npos);
  EXPECT_NE(header.find("status"), std::string::npos);
  // Each column is as wide as its widest cell (here the header words).
  EXPECT_EQ(header, "claim                            expected  simulated  rel err  tolerance  status");
  EXPECT_EQ(row1, "llmnpu.t3.npu-int8.64x2048x2048       0.9   0.873456     2.9%      30.0%  pass");
  EXPECT_EQ(row2.substr(0, 1), "b");
  EXPECT_NE(row2.find("252"), std::string::npos);
  EXPECT_EQ(row2.substr(row2.size() - 5), "ERROR");
  EXPECT_EQ(message, "    claim b: `microbench`: error: not built yet");
}

TEST(ClaimReport, JsonShape) {
  const auto results = sample();
  Summary s;
  s.claims = 2;
  s.within_tolerance = 1;
  s.median_abs_error_pct = 2.949;
  const auto j = results_json(results, s);
  ASSERT_EQ(j["claims"].size(), 2u);
  const auto& c = j["claims"][0];
  std::vector<std::string> keys;
  for (auto it = c.begin(); it != c.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "source", "expected", "simulated", "relative_error", "tolerance",
                                            "informational", "status", "message"}));
  EXPECT_EQ(c["status"], "pass");
  EXPECT_DOUBLE_EQ(c["relative_error"].get<double>(), 0.02949);
  EXPECT_TRUE(j["claims"][1]["simulated"].is_null());
  EXPECT_TRUE(j["claims"][1]["relative_error"].is_null());
  EXPECT_EQ(j["claims"][1]["informational"], true);
  EXPECT_EQ(j["claims"][1]["status"], "ERROR");
  EXPECT_EQ(j["summary"]["claims"], 2);
  EXPECT_EQ(j["summary"]["within_tolerance"], 1);
  EXPECT_DOUBLE_EQ(j["summary"]["median_abs_error_pct"].get<double>(), 2.949);
  s.median_abs_error_pct.reset();
  EXPECT_TRUE(results_json(results, s)["summary"]["median_abs_error_pct"].is_null());
}

}  // namespace
}  // namespace socsim::validation
