#pragma once
// Runs claims and judges each against its published value. A claim that cannot be evaluated
// (its command fails, its metric is missing) becomes an ERROR row with the reason instead of
// stopping validate: one bad claim must not hide the verdict on all the others.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/validation/claim.h"
#include "sim/validation/command_cache.h"

namespace socsim::validation {

enum class Status {
  kPass,   // within tolerance
  kFail,   // outside tolerance
  kInfo,   // informational: a number was produced; never a failure
  kError,  // no number: the command failed or the metric is missing
};

std::string_view status_name(Status s);  // "pass", "FAIL", "info", "ERROR"

struct ClaimResult {
  std::string id;
  std::string source;
  double expected = 0;
  double tolerance = 0;
  bool informational = false;
  std::optional<double> simulated;       // absent for ERROR rows
  std::optional<double> relative_error;  // |sim - expect| / expect, a fraction
  Status status = Status::kError;
  std::string message;  // why an ERROR row has no number; empty otherwise
  // Set when the ERROR is the claims file's fault (a metric the command's JSON lacks, arguments
  // the command rejects): validate then exits 2, naming file:line and the claim's key.
  std::optional<config::ConfigError> input_error;
  // Set when the ERROR is an internal error of the command (a bug): validate then exits 1.
  bool internal_error = false;

  bool within_tolerance() const;
};

// The verdict on one number; exposed so the comparison rule has exactly one definition.
bool within_tolerance(double relative_error, double tolerance);

class ClaimRunner {
 public:
  explicit ClaimRunner(CommandTable table);

  ClaimResult run(const Claim& claim);
  std::vector<ClaimResult> run_all(const std::vector<Claim>& claims);

  // Distinct command invocations so far (identical ones are computed once).
  std::size_t invocations() const { return cache_.invocations(); }

 private:
  double measure(const Measurement& m);

  CommandCache cache_;
};

}  // namespace socsim::validation
