#pragma once
// The message of the config::ConfigError `f` throws, or "(no error)": tests of refusals compare
// the whole "file:line: key: why" text a user would read.
#include <functional>
#include <string>

#include "sim/config/config_error.h"

namespace socsim::test {

inline std::string config_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace socsim::test
