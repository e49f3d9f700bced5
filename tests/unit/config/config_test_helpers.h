#pragma once
// Shared helpers for the configuration tests: capture a ConfigError to inspect its parts, and
// locate the YAML fixtures under tests/data/config/.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "sim/config/config_error.h"

namespace socsim::config::testing {

// Runs `f` and returns the ConfigError it throws; records a test failure if it does not.
template <typename F>
ConfigError capture_config_error(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError, none was thrown";
  return ConfigError({}, "", "<no error>");
}

// Runs `f` and returns the std::invalid_argument message it throws.
template <typename F>
std::string capture_invalid_argument(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected std::invalid_argument, none was thrown";
  return "<no error>";
}

inline std::string data_file(const std::string& name) {
  return std::string(SOCSIM_TEST_DATA_DIR) + "/config/" + name;
}

}  // namespace socsim::config::testing
