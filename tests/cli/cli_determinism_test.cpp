// Determinism (DESIGN: same inputs and seed give byte-identical reports): every registered system
// runs twice with the same inputs; the JSON, the trace and the HTML report must match byte for
// byte. One test per system (ctest runs them in parallel); new systems are covered as soon as
// they register.
#include <gtest/gtest.h>

#include "sim/systems/system.h"
#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

class CliDeterminism : public ::testing::TestWithParam<std::string> {};

TEST_P(CliDeterminism, TwoRunsGiveByteIdenticalReports) {
  const std::string id = GetParam();
  const auto dir = scratch_dir("determinism_" + id);
  std::string files[2][3];
  for (int run = 0; run < 2; ++run) {
    const auto out = dir / std::to_string(run);
    const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system " + id +
                              " --prompt 32 --decode 2 --seed 11 --json '" + (out / "r.json").string() + "' --report-dir '" +
                              (out / "rep").string() + "'");
    ASSERT_EQ(r.exit_code, 0) << id << ": " << r.err;
    files[run][0] = read_file(out / "r.json");
    files[run][1] = read_file(out / "rep" / "trace.json");
    files[run][2] = read_file(out / "rep" / "report.html");
  }
  EXPECT_FALSE(files[0][0].empty());
  EXPECT_EQ(files[0][0], files[1][0]) << id << ": JSON differs between two identical runs";
  EXPECT_EQ(files[0][1], files[1][1]) << id << ": trace.json differs";
  EXPECT_EQ(files[0][2], files[1][2]) << id << ": report.html differs";
}

INSTANTIATE_TEST_SUITE_P(EverySystem, CliDeterminism, ::testing::ValuesIn(systems::SystemRegistry::builtin().ids()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) c = (c == '-') ? '_' : c;
                           return name;
                         });

TEST(CliDeterminismCoverage, EveryRegisteredSystemIsCovered) {
  EXPECT_GE(systems::SystemRegistry::builtin().ids().size(), 13u);  // the contract's ids
}

}  // namespace
}  // namespace socsim::test
