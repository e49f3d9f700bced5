#pragma once
// Shared helpers for the validation tests: a fake command table that counts its calls (so
// caching is observable without running the simulator), and capture of a ConfigError.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/config_error.h"
#include "sim/validation/command_cache.h"

namespace socsim::validation::testing {

// Runs `f` and returns the ConfigError it throws; records a test failure if it does not.
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

// A fake "run"/"microbench": returns {"latency_ms": <--m>, "prompt_tokens": <--prompt>,
// "units": {"cpu": {"busy_ms": 2.5}}} from its argv, and records every call.
struct FakeCommands {
  std::vector<std::vector<std::string>> calls;

  static double option(const std::vector<std::string>& args, const std::string& name, double dflt) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == name) return std::stod(args[i + 1]);
    }
    return dflt;
  }

  CommandFn fake() {
    return [this](const std::vector<std::string>& args) {
      calls.push_back(args);
      nlohmann::ordered_json j;
      j["latency_ms"] = option(args, "--m", 1.0);
      j["prompt_tokens"] = option(args, "--prompt", 0.0);
      j["units"] = {{"cpu", {{"busy_ms", 2.5}}}};
      return j;
    };
  }

  CommandTable table() { return {{"run", fake()}, {"microbench", fake()}}; }
};

}  // namespace socsim::validation::testing
