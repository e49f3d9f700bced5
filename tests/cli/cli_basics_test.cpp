#include <gtest/gtest.h>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

TEST(Cli, HelpAndVersion) {
  auto r = run_socsim("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("run"), std::string::npos);
  EXPECT_NE(r.out.find("microbench"), std::string::npos);
  r = run_socsim("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("socsim ", 0), 0u);
  for (const char* cmd : {"run", "microbench", "validate"}) {
    r = run_socsim(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("usage: socsim"), std::string::npos) << cmd;
  }
}

TEST(Cli, UnknownCommandAndLogLevelAreBadInput) {
  auto r = run_socsim("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command"), std::string::npos);
  r = run_socsim("--log-level loud run --help");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--log-level"), std::string::npos);
  r = run_socsim("");
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace socsim::test
