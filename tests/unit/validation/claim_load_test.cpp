// Loading claims files: the schema of calibration/README.md, with file:line on every mistake.
#include <gtest/gtest.h>

#include "sim/validation/claim.h"
#include "tests/unit/validation/validation_test_helpers.h"

namespace socsim::validation {
namespace {

using testing::capture_config_error;

config::ConfigError load_error(const std::string& yaml) {
  return capture_config_error([&] { load_claims_string(yaml, "c.yaml"); });
}

TEST(ClaimLoad, FlowAndBlockStyleClaims) {
  const auto claims = load_claims_string(
      "claims:\n"
      "  - {id: a, source: \"paper\", microbench: {soc: s, op: matmul, m: 64}, metric: latency_ms, expect: 0.9, tolerance: 0.3}\n"
      "  - id: b\n"
      "    source: paper 2\n"
      "    run: {soc: s, prompt: 8}\n"
      "    metric: units.cpu.busy_ms\n"
      "    expect: 2\n"
      "    tolerance: 0.1\n"
      "    informational: true\n",
      "c.yaml");
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].id, "a");
  EXPECT_EQ(claims[0].source, "paper");
  EXPECT_EQ(claims[0].value.command, "microbench");
  EXPECT_EQ(claims[0].value.args, (std::vector<std::string>{"--soc", "s", "--op", "matmul", "--m", "64"}));
  EXPECT_EQ(claims[0].value.metric, "latency_ms");
  EXPECT_DOUBLE_EQ(claims[0].expect, 0.9);
  EXPECT_DOUBLE_EQ(claims[0].tolerance, 0.3);
  EXPECT_FALSE(claims[0].informational);
  EXPECT_FALSE(claims[0].is_ratio());
  EXPECT_EQ(claims[1].value.command, "run");
  EXPECT_EQ(claims[1].value.metric, "units.cpu.busy_ms");
  EXPECT_TRUE(claims[1].informational);
  EXPECT_EQ(claims[1].location.line, 3);
}

TEST(ClaimLoad, RatioClaim) {
  const auto claims = load_claims_string(
      "claims:\n"
      "  - id: r\n"
      "    source: x\n"
      "    ratio:\n"
      "      numerator:   {microbench: {m: 256}, metric: latency_ms}\n"
      "      denominator: {run: {prompt: 8}, metric: prompt_tokens}\n"
      "    expect: 6.0\n"
      "    tolerance: 0.35\n",
      "c.yaml");
  ASSERT_EQ(claims.size(), 1u);
  ASSERT_TRUE(claims[0].is_ratio());
  EXPECT_EQ(claims[0].value.command, "microbench");
  EXPECT_EQ(claims[0].value.metric, "latency_ms");
  EXPECT_EQ(claims[0].denominator->command, "run");
  EXPECT_EQ(claims[0].denominator->args, (std::vector<std::string>{"--prompt", "8"}));
  EXPECT_EQ(claims[0].denominator->metric, "prompt_tokens");
}

TEST(ClaimLoad, MissingIdNamesFileAndLine) {
  const auto e = load_error("claims:\n  - {id: a, source: s, run: {}, metric: m, expect: 1, tolerance: 1}\n"
                            "  - {source: s, run: {}, metric: m, expect: 1, tolerance: 1}\n");
  EXPECT_EQ(e.key(), "claims[1].id");
  EXPECT_EQ(e.message(), "missing required key");
  EXPECT_EQ(e.location().file, "c.yaml");
  EXPECT_EQ(e.location().line, 3);
}

TEST(ClaimLoad, DuplicateIdPointsAtBothDefinitions) {
  const auto e = load_error("claims:\n  - {id: a, source: s, run: {}, metric: m, expect: 1, tolerance: 1}\n"
                            "  - {id: b, source: s, run: {}, metric: m, expect: 1, tolerance: 1}\n"
                            "  - {id: a, source: s, run: {}, metric: m, expect: 1, tolerance: 1}\n");
  EXPECT_EQ(e.location().line, 4);
  EXPECT_EQ(e.key(), "claims[2].id");
  EXPECT_EQ(e.message(), "duplicate claim id 'a' (first defined at c.yaml:2)");
}

TEST(ClaimLoad, TwoCommandBlocksIsAnError) {
  const auto e = load_error("claims:\n  - id: a\n    source: s\n    microbench: {m: 1}\n    run: {prompt: 8}\n"
                            "    metric: m\n    expect: 1\n    tolerance: 1\n");
  EXPECT_EQ(e.location().line, 5);
  EXPECT_EQ(e.key(), "claims[0].run");
  EXPECT_NE(e.message().find("only one of microbench, run, serve or ratio"), std::string::npos) << e.what();
}

TEST(ClaimLoad, NoCommandBlockIsAnError) {
  const auto e = load_error("claims:\n  - {id: a, source: s, metric: m, expect: 1, tolerance: 1}\n");
  EXPECT_EQ(e.location().line, 2);
  EXPECT_EQ(e.message(), "expected exactly one of microbench, run, serve or ratio");
}

TEST(ClaimLoad, UnknownKeyWithSuggestion) {
  const auto e = load_error("claims:\n  - id: a\n    source: s\n    run: {prompt: 8}\n    metric: m\n"
                            "    expect: 1\n    tolerance: 1\n    informationl: true\n");
  EXPECT_EQ(std::string(e.what()), "c.yaml:8: claims[0].informationl: unknown key; did you mean 'informational'?");
}

TEST(ClaimLoad, MisspeltRequiredKeyIsReportedAsTheTypo) {
  // Not "missing required key tolerance": the typo itself is the useful message.
  const auto e = load_error("claims:\n  - {id: a, source: s, run: {}, metric: m, expect: 1,\n      tolerence: 0.1}\n");
  EXPECT_EQ(std::string(e.what()), "c.yaml:3: claims[0].tolerence: unknown key; did you mean 'tolerance'?");
  const auto r = load_error("claims:\n  - id: r\n    source: x\n    ratio:\n"
                            "      numerator:   {microbench: {m: 1}, metirc: latency_ms}\n"
                            "      denominator: {microbench: {m: 2}, metric: latency_ms}\n"
                            "    expect: 2\n    tolerance: 0.1\n");
  EXPECT_EQ(r.key(), "claims[0].ratio.numerator.metirc");
  EXPECT_EQ(r.message(), "unknown key; did you mean 'metric'?");
  EXPECT_EQ(r.location().line, 5);
}

TEST(ClaimLoad, UnknownTopLevelKey) {
  const auto e = load_error("claims:\n  - {id: a, source: s, run: {}, metric: m, expect: 1, tolerance: 1}\nclams: []\n");
  EXPECT_EQ(e.location().line, 3);
  EXPECT_EQ(e.key(), "clams");
}

TEST(ClaimLoad, MissingMetric) {
  const auto e = load_error("claims:\n  - id: a\n    source: s\n    run: {prompt: 8}\n    expect: 1\n    tolerance: 1\n");
  EXPECT_EQ(e.key(), "claims[0].metric");
  EXPECT_EQ(e.message(), "missing required key");
  EXPECT_EQ(e.location().line, 2);
}

TEST(ClaimLoad, RatioSidesNeedTheirOwnMetric) {
  auto e = load_error("claims:\n  - id: r\n    source: x\n    ratio:\n"
                      "      numerator:   {microbench: {m: 1}, metric: latency_ms}\n"
                      "      denominator: {microbench: {m: 2}}\n"
                      "    expect: 2\n    tolerance: 0.1\n");
  EXPECT_EQ(e.key(), "claims[0].ratio.denominator.metric");
  EXPECT_EQ(e.location().line, 6);
  e = load_error("claims:\n  - id: r\n    source: x\n    ratio:\n"
                 "      numerator:   {microbench: {m: 1}, metric: latency_ms}\n"
                 "      denominator: {microbench: {m: 2}, metric: latency_ms}\n"
                 "    metric: latency_ms\n    expect: 2\n    tolerance: 0.1\n");
  EXPECT_EQ(e.key(), "claims[0].metric");
  EXPECT_EQ(e.location().line, 7);
  e = load_error("claims:\n  - id: r\n    source: x\n    ratio:\n"
                 "      numerator:   {metric: latency_ms}\n"
                 "      denominator: {microbench: {m: 2}, metric: latency_ms}\n"
                 "    expect: 2\n    tolerance: 0.1\n");
  EXPECT_EQ(e.key(), "claims[0].ratio.numerator");
  EXPECT_EQ(e.message(), "expected exactly one of microbench, run or serve");
}

TEST(ClaimLoad, ExpectAndToleranceArePositiveNumbers) {
  auto e = load_error("claims:\n  - {id: a, source: s, run: {}, metric: m, expect: 0, tolerance: 1}\n");
  EXPECT_EQ(e.key(), "claims[0].expect");
  EXPECT_EQ(e.message(), "must be a finite number > 0");
  e = load_error("claims:\n  - {id: a, source: s, run: {}, metric: m, expect: 1,\n      tolerance: -0.1}\n");
  EXPECT_EQ(e.key(), "claims[0].tolerance");
  EXPECT_EQ(e.location().line, 3);
  e = load_error("claims:\n  - {id: a, source: s, run: {}, metric: m, expect: fast, tolerance: 1}\n");
  EXPECT_EQ(e.key(), "claims[0].expect");
  EXPECT_NE(e.message().find("expected a number"), std::string::npos);
}

TEST(ClaimLoad, MalformedMetricPath) {
  const auto e = load_error("claims:\n  - {id: a, source: s, run: {}, metric: units..busy_ms, expect: 1, tolerance: 1}\n");
  EXPECT_EQ(e.key(), "claims[0].metric");
  EXPECT_NE(e.message().find("dotted path"), std::string::npos);
}

TEST(ClaimLoad, FileStructure) {
  EXPECT_EQ(load_error("claims: []\n").message(), "expected at least one claim");
  EXPECT_EQ(load_error("other: 1\n").message(), "unknown key (allowed: claims)");
  EXPECT_EQ(load_error("# no claims\n{}\n").key(), "claims");
  EXPECT_NE(load_error("claims: {a: 1}\n").message().find("expected a list of maps"), std::string::npos);
}

}  // namespace
}  // namespace socsim::validation
