#pragma once
// A calibration claim (schema in calibration/README.md, part of the contract): one published
// measurement of a real phone and the socsim command that should reproduce it. Loading is strict
// because a typo in a claims file would otherwise silently validate something else: every
// structural mistake is a config::ConfigError naming file:line and the dotted key (exit 2).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config/config_error.h"

namespace socsim::validation {

// One command invocation and the number read from its JSON result.
struct Measurement {
  Measurement() = default;
  Measurement(std::string command, std::vector<std::string> args, std::string metric)
      : command(std::move(command)), args(std::move(args)), metric(std::move(metric)) {}

  std::string command;            // "microbench", "run" or "serve"
  std::vector<std::string> args;  // command-line options, e.g. {"--soc", "snapdragon-8gen3", ...}
  std::string metric;             // dotted path into the command's JSON, e.g. "units.npu.busy_ms"
  // Where the claims file says so, for bad-input messages found only when the claim runs (a
  // metric the command's JSON lacks, arguments the command rejects).
  config::SourceLocation command_location, metric_location;
  std::string command_key, metric_key;  // dotted keys, e.g. "claims[3].run", "claims[3].metric"
};

struct Claim {
  std::string id;
  std::string source;
  config::SourceLocation location;  // where the claim is written, for messages
  Measurement value;                // the measurement, or a ratio's numerator
  std::optional<Measurement> denominator;  // set for ratio claims: value / denominator
  double expect = 0;
  double tolerance = 0;  // allowed |sim - expect| / expect
  bool informational = false;

  bool is_ratio() const { return denominator.has_value(); }
};

// The commands a claim may name, in the order the schema lists them.
inline constexpr std::string_view kClaimCommands[] = {"microbench", "run", "serve"};

std::vector<Claim> load_claims_file(const std::filesystem::path& path);
// For tests: the same rules on YAML text; `file_name` appears in error locations.
std::vector<Claim> load_claims_string(std::string_view yaml, std::string file_name);

}  // namespace socsim::validation
