// Running claims through a fake command table: verdicts, ratios, caching and error rows.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/validation/claim_runner.h"
#include "tests/unit/validation/validation_test_helpers.h"

namespace socsim::validation {
namespace {

using testing::FakeCommands;

Claim claim(std::string id, std::string command, std::vector<std::string> args, std::string metric, double expect,
            double tolerance, bool informational = false) {
  Claim c;
  c.id = std::move(id);
  c.source = "test";
  c.value = {std::move(command), std::move(args), std::move(metric)};
  c.expect = expect;
  c.tolerance = tolerance;
  c.informational = informational;
  return c;
}

TEST(ClaimRunner, PassAndFailByRelativeError) {
  FakeCommands fake;
  ClaimRunner runner(fake.table());
  const auto pass = runner.run(claim("p", "microbench", {"--m", "1.1"}, "latency_ms", 1.0, 0.2));
  EXPECT_EQ(pass.status, Status::kPass);
  EXPECT_DOUBLE_EQ(*pass.simulated, 1.1);
  EXPECT_NEAR(*pass.relative_error, 0.1, 1e-12);
  EXPECT_TRUE(pass.message.empty());
  const auto fail = runner.run(claim("f", "microbench", {"--m", "0.5"}, "latency_ms", 1.0, 0.2));
  EXPECT_EQ(fail.status, Status::kFail);
  EXPECT_NEAR(*fail.relative_error, 0.5, 1e-12);
}

TEST(ClaimRunner, ExactlyAtToleranceDespiteRounding) {
  FakeCommands fake;
  ClaimRunner runner(fake.table());
  // |1.17 - 0.9| / 0.9 is 0.30000000000000004 in binary floating point.
  EXPECT_EQ(runner.run(claim("b", "run", {"--m", "1.17"}, "latency_ms", 0.9, 0.3)).status, Status::kPass);
  EXPECT_EQ(runner.run(claim("c", "run", {"--m", "1.171"}, "latency_ms", 0.9, 0.3)).status, Status::kFail);
}

TEST(ClaimRunner, InformationalNeverFails) {
  FakeCommands fake;
  ClaimRunner runner(fake.table());
  const auto r = runner.run(claim("i", "microbench", {"--m", "5"}, "latency_ms", 252, 0.3, true));
  EXPECT_EQ(r.status, Status::kInfo);
  EXPECT_FALSE(r.within_tolerance());
  const auto close = runner.run(claim("j", "microbench", {"--m", "250"}, "latency_ms", 252, 0.3, true));
  EXPECT_EQ(close.status, Status::kInfo);
  EXPECT_TRUE(close.within_tolerance());
}

TEST(ClaimRunner, RatioDividesNumeratorByDenominator) {
  FakeCommands fake;
  ClaimRunner runner(fake.table());
  Claim c = claim("r", "microbench", {"--m", "6"}, "latency_ms", 3.0, 0.01);
  c.denominator = Measurement{"run", {"--prompt", "2"}, "prompt_tokens"};
  const auto r = runner.run(c);
  EXPECT_EQ(r.status, Status::kPass);
  EXPECT_DOUBLE_EQ(*r.simulated, 3.0);
  c.denominator = Measurement{"run", {"--prompt", "0"}, "prompt_tokens"};
  const auto zero = runner.run(c);
  EXPECT_EQ(zero.status, Status::kError);
  EXPECT_EQ(zero.message, "claim r: denominator: metric 'prompt_tokens' is 0");
  ASSERT_TRUE(zero.input_error.has_value());  // the claims file's mistake: validate exits 2
  EXPECT_NE(std::string(zero.input_error->what()).find("a ratio cannot divide by it"), std::string::npos);
}

TEST(ClaimRunner, IdenticalInvocationsRunOnce) {
  FakeCommands fake;
  ClaimRunner runner(fake.table());
  Claim ratio = claim("r", "microbench", {"--m", "2"}, "latency_ms", 2.0, 0.1);
  ratio.denominator = Measurement{"microbench", {"--m", "1"}, "latency_ms"};
  const auto results = runner.run_all({
      claim("a", "microbench", {"--m", "1"}, "latency_ms", 1.0, 0.1),
      claim("b", "microbench", {"--m", "1"}, "units.cpu.busy_ms", 2.5, 0.1),  // same run, other metric
      ratio,                                                                  // both sides seen before or new
      claim("c", "run", {"--m", "1"}, "latency_ms", 1.0, 0.1),                // same argv, other command
      claim("d", "microbench", {"--m", "1", "--n", "2"}, "latency_ms", 1.0, 0.1),
  });
  ASSERT_EQ(results.size(), 5u);
  for (const auto& r : results) EXPECT_EQ(r.status, Status::kPass) << r.id << ": " << r.message;
  EXPECT_EQ(fake.calls.size(), 4u);  // {m 1}, {m 2}, run {m 1}, {m 1 n 2}
  EXPECT_EQ(runner.invocations(), 4u);
}

TEST(ClaimRunner, MissingMetricNamesClaimPathAndAvailableKeys) {
  FakeCommands fake;
  ClaimRunner runner(fake.table());
  const auto r = runner.run(claim("x.y", "run", {"--prompt", "8"}, "units.npu.busy_ms", 1, 0.1));
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_FALSE(r.simulated.has_value());
  EXPECT_EQ(r.message,
            "claim x.y: metric 'units.npu.busy_ms': no 'npu' in 'units' (available: cpu) in the result of "
            "`run --prompt 8`");
}

TEST(ClaimRunner, FailingCommandsBecomeErrorRowsAndAreCached) {
  int calls = 0;
  CommandTable table{
      {"run", [&](const std::vector<std::string>&) -> nlohmann::ordered_json {
         ++calls;
         throw config::ConfigError({"soc.yaml", 3, 1}, "dram.peak", "expected a bandwidth");
       }},
      {"microbench", [](const std::vector<std::string>&) -> nlohmann::ordered_json {
         throw std::logic_error("not built yet");
       }},
  };
  ClaimRunner runner(std::move(table));
  const auto bad = runner.run(claim("a", "run", {"--soc", "x"}, "m", 1, 0.1));
  EXPECT_EQ(bad.status, Status::kError);
  EXPECT_EQ(bad.message, "claim a: `run --soc x`: bad input: soc.yaml:3: dram.peak: expected a bandwidth");
  EXPECT_EQ(runner.run(claim("b", "run", {"--soc", "x"}, "other", 1, 0.1)).status, Status::kError);
  EXPECT_EQ(calls, 1);
  const auto internal = runner.run(claim("c", "microbench", {}, "m", 1, 0.1, true));
  EXPECT_EQ(internal.status, Status::kError);  // informational waives tolerance, not evaluation
  EXPECT_EQ(internal.message, "claim c: `microbench`: error: not built yet");
}

TEST(ClaimRunner, CommandMissingFromTheTable) {
  FakeCommands fake;
  ClaimRunner runner(fake.table());
  Claim c = claim("s", "run", {"--m", "1"}, "latency_ms", 1, 0.1);
  c.denominator = Measurement{"serve", {"--policy", "lru"}, "latency_ms"};
  const auto r = runner.run(c);
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_EQ(r.message, "claim s: denominator: `serve --policy lru`: 'serve' is not available in this build");
}

TEST(ClaimRunner, StatusNames) {
  EXPECT_EQ(status_name(Status::kPass), "pass");
  EXPECT_EQ(status_name(Status::kFail), "FAIL");
  EXPECT_EQ(status_name(Status::kInfo), "info");
  EXPECT_EQ(status_name(Status::kError), "ERROR");
}

}  // namespace
}  // namespace socsim::validation
