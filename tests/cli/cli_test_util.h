#pragma once
// Runs the real socsim binary (SOCSIM_BINARY) and captures exit code, stdout and stderr, so the
// CLI contract (exit codes, messages, files written) is tested end to end.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "tests/support/scratch_dir.h"

namespace socsim::test {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A fresh empty folder per test process (see tests/support/scratch_dir.h).
inline std::filesystem::path scratch_dir(const std::string& name) {
  return socsim::test::fresh_scratch_dir("socsim_cli_test_", name);
}

// `env`: assignments put before the binary (e.g. "SOCSIM_FAULT_FSYNC=1"), for the child only.
inline CliResult run_socsim(const std::string& args, const std::string& cwd = SOCSIM_SOURCE_DIR, const std::string& env = "") {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path();
  const auto tag = std::to_string(::getpid()) + "_" + std::to_string(counter++);
  const auto out = dir / ("socsim_out_" + tag), err = dir / ("socsim_err_" + tag);
  const std::string cmd = "cd '" + cwd + "' && " + (env.empty() ? "" : "env " + env + " ") + "'" + std::string(SOCSIM_BINARY) + "' " +
                          args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Runs `socsim <args> --json FILE` (must exit 0) and returns the parsed JSON.
inline nlohmann::json run_socsim_json(const std::string& args, const std::string& name) {
  const auto dir = scratch_dir(name);
  const auto r = run_socsim(args + " --json '" + (dir / "out.json").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_file(dir / "out.json"));
}

}  // namespace socsim::test
