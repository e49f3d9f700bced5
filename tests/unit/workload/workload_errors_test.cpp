// Workload mistakes are reported with file:line, the dotted key and what was expected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/runtime/workload/workload.h"
#include "tests/unit/workload/workload_test_helpers.h"

namespace socsim::runtime {
namespace {

using testing::capture_config_error;

config::ConfigError load_error(const std::string& yaml) {
  return capture_config_error([&] { parse_workload(yaml, "bad.yaml"); });
}

void expect_error(const config::ConfigError& e, int line, const std::string& key,
                  const std::string& message_part) {
  EXPECT_EQ(e.location().file, "bad.yaml");
  EXPECT_EQ(e.location().line, line);
  EXPECT_EQ(e.key(), key);
  EXPECT_NE(e.message().find(message_part), std::string::npos) << e.what();
}

TEST(WorkloadErrors, UnknownKeySuggestsTheRealOne) {
  const auto e = load_error("prompt: 8\ndecode: 1\nbacth: 4\n");
  expect_error(e, 3, "bacth", "unknown key");
  EXPECT_NE(e.message().find("did you mean 'batch'?"), std::string::npos) << e.what();
}

TEST(WorkloadErrors, MisspelledFormSuggestsTheRealOne) {
  const auto e = load_error("prompt: {unifrom: [1, 2]}\ndecode: 1\n");
  expect_error(e, 1, "prompt.unifrom", "did you mean 'uniform'?");
}

TEST(WorkloadErrors, UnknownKeyInsideNormal) {
  const auto e = load_error(
      "prompt: 8\ndecode:\n  normal: {mean: 4, std: 1, min: 1, max: 9, sd: 2}\n");
  expect_error(e, 3, "decode.normal.sd", "unknown key");
}

TEST(WorkloadErrors, EmptyDistributionMap) {
  expect_error(load_error("prompt: {}\ndecode: 1\n"), 1, "prompt", "expected a length or a distribution");
}

TEST(WorkloadErrors, PromptZero) {
  expect_error(load_error("name: x\nprompt: 0\ndecode: 1\n"), 2, "prompt", "[1, 16777216]");
}

TEST(WorkloadErrors, NegativeDecode) {
  expect_error(load_error("prompt: 8\ndecode: -1\n"), 2, "decode", "[0, 16777216]");
}

TEST(WorkloadErrors, MissingPrompt) {
  expect_error(load_error("decode: 1\n"), 1, "prompt", "missing required key");
}

TEST(WorkloadErrors, LengthNotAnInteger) {
  expect_error(load_error("prompt: long\ndecode: 1\n"), 1, "prompt", "expected an integer");
  expect_error(load_error("prompt: 8.5\ndecode: 1\n"), 1, "prompt", "expected an integer");
}

TEST(WorkloadErrors, LengthAsAList) {
  expect_error(load_error("prompt: [1, 2]\ndecode: 1\n"), 1, "prompt", "expected a map");
}

TEST(WorkloadErrors, BatchZero) {
  expect_error(load_error("prompt: 8\ndecode: 1\nbatch: 0\n"), 3, "batch", "[1, 65536]");
}

TEST(WorkloadErrors, RepeatZeroAndNegativeSeed) {
  expect_error(load_error("prompt: 8\ndecode: 1\nrepeat: 0\n"), 3, "repeat", "[1, 1048576]");
  expect_error(load_error("prompt: 8\ndecode: 1\nseed: -3\n"), 3, "seed", "must be in");
}

TEST(WorkloadErrors, UniformMinAboveMax) {
  expect_error(load_error("prompt: 8\n\ndecode: {uniform: [57, 35]}\n"), 3, "decode.uniform",
               "min must be <= max, got [57, 35]");
}

TEST(WorkloadErrors, UniformNeedsTwoWholeLengthsInRange) {
  expect_error(load_error("prompt: {uniform: [1, 2, 3]}\ndecode: 1\n"), 1, "prompt.uniform",
               "expected [min, max], got 3 values");
  expect_error(load_error("prompt: {uniform: [1, 2.5]}\ndecode: 1\n"), 1, "prompt.uniform[1]",
               "whole number of tokens in [1, 16777216], got 2.5");
  expect_error(load_error("prompt: {uniform: [0, 2]}\ndecode: 1\n"), 1, "prompt.uniform[0]",
               "got 0");
}

TEST(WorkloadErrors, NormalParameters) {
  expect_error(load_error("prompt: 8\ndecode:\n  normal: {mean: 4, std: 1, min: 9, max: 1}\n"), 3,
               "decode.normal.min", "must be <= max (1), got 9");
  expect_error(load_error("prompt: 8\ndecode:\n  normal: {mean: 4, std: 0, min: 1, max: 9}\n"), 3,
               "decode.normal.std", "must be > 0");
  expect_error(load_error("prompt: 8\ndecode:\n  normal: {mean: 40, std: 1, min: 1, max: 9}\n"), 3,
               "decode.normal.mean", "must lie within [min, max] = [1, 9], got 40");
  // Far wider than its range: nearly every draw would be redrawn, then clamped to an end.
  expect_error(load_error("prompt: 8\ndecode:\n  normal: {mean: 10, std: 1000000, min: 10, max: 10}\n"), 3,
               "decode.normal.std", "1e+06 leaves only 3.99e-05% of the draws inside [min, max] = [10, 10], under the 1% a truncated normal needs");
  expect_error(load_error("prompt: 8\ndecode:\n  normal: {mean: 10, std: 50, min: 10, max: 10}\n"), 3,
               "decode.normal.std", "one length is written as itself (`10`)");
  // Just under the floor is not rounded up to it (std 39.8932 keeps 0.99999996%).
  expect_error(load_error("prompt: 8\ndecode:\n  normal: {mean: 5, std: 39.8932, min: 5, max: 5}\n"), 3, "decode.normal.std", "leaves only 0.999% of");
  expect_error(load_error("prompt: 8\ndecode:\n  normal: {mean: 100, std: 1e9, min: 90, max: 110}\n"), 3, "decode.normal.std",
               "write `uniform: [90, 110]`, or give a std nearer the range's width");
  expect_error(load_error("prompt: 8\ndecode:\n  normal: {mean: 4, min: 1, max: 9}\n"), 3,
               "decode.normal.std", "missing required key");
  // A list where the map goes says what the map holds (hostile-input audit: only "expected a map").
  expect_error(load_error("prompt: {normal: [5, 1]}\ndecode: 1\n"), 1, "prompt.normal",
               "expected a map, got a list; a truncated normal is {mean, std, min, max}");
}

TEST(WorkloadErrors, ChoicesMustBeNonEmptyLengths) {
  expect_error(load_error("prompt: {choices: []}\ndecode: 1\n"), 1, "prompt.choices",
               "expected at least one length");
  expect_error(load_error("prompt: {choices: [64, -1]}\ndecode: 1\n"), 1, "prompt.choices[1]",
               "got -1");
}

TEST(WorkloadErrors, DistributionWithTwoForms) {
  const auto e = load_error(
      "prompt: 8\n"
      "decode:\n"
      "  uniform: [1, 4]\n"
      "  choices: [2, 3]\n");
  expect_error(e, 4, "decode.choices", "exactly one form; 'uniform' is already given");
}

TEST(WorkloadErrors, FileErrorsNameTheFile) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "socsim_workload_errors";
  std::filesystem::create_directories(dir);
  const auto file = dir / "typo.yaml";
  std::ofstream(file) << "name: typo\nprompt: 8\ndecode: 1\nrepaet: 3\n";
  const auto e = capture_config_error([&] { load_workload(file); });
  EXPECT_EQ(e.location().file, file.string());
  EXPECT_EQ(e.location().line, 4);
  EXPECT_EQ(e.key(), "repaet");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace socsim::runtime
