#pragma once
// Shared helpers for the workload tests: capture a ConfigError, and find the shipped workloads.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>

#include "sim/config/config_error.h"

namespace socsim::runtime::testing {

template <typename F>
config::ConfigError capture_config_error(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const config::ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError, none was thrown";
  return config::ConfigError({}, "", "<no error>");
}

// workloads/ of the source tree (tests/data is two levels below the repository root).
inline std::filesystem::path workloads_dir() {
  return std::filesystem::path(SOCSIM_TEST_DATA_DIR) / ".." / ".." / "workloads";
}

}  // namespace socsim::runtime::testing
