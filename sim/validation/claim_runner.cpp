#include "sim/validation/claim_runner.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "sim/core/run_progress.h"
#include "sim/validation/metric_path.h"

namespace socsim::validation {

namespace {

// Raised while measuring; carries the reason without the claim id, which run() adds, and the
// claims file's location when the claim itself is at fault.
class ClaimError : public std::runtime_error {
 public:
  explicit ClaimError(const std::string& what, std::optional<config::ConfigError> input = std::nullopt, bool internal = false)
      : std::runtime_error(what), input(std::move(input)), internal(internal) {}
  std::optional<config::ConfigError> input;
  bool internal = false;  // the command failed as a bug would (what would be exit 1)
};

}  // namespace

std::string_view status_name(Status s) {
  switch (s) {
    case Status::kPass: return "pass";
    case Status::kFail: return "FAIL";
    case Status::kInfo: return "info";
    case Status::kError: return "ERROR";
  }
  return "?";
}

// A claim exactly at its tolerance passes ("<= tolerance"). The relative slack absorbs binary
// rounding, e.g. |1.17 - 0.9| / 0.9 = 0.30000000000000004 for a 0.3 tolerance; it is far below
// any difference a claim could mean.
bool within_tolerance(double relative_error, double tolerance) {
  return relative_error <= tolerance * (1 + 1e-9);
}

bool ClaimResult::within_tolerance() const {
  return relative_error.has_value() && validation::within_tolerance(*relative_error, tolerance);
}

ClaimRunner::ClaimRunner(CommandTable table) : cache_(std::move(table)) {}

double ClaimRunner::measure(const Measurement& m) {
  try {
    return lookup_metric(cache_.call(m.command, m.args), m.metric);
  } catch (const CommandFailure& e) {
    if (!e.bad_input()) throw ClaimError(e.what(), std::nullopt, true);
    throw ClaimError(e.what(), config::ConfigError(m.command_location, m.command_key, e.what()));
  } catch (const MetricError& e) {
    const std::string what = std::string(e.what()) + " in the result of `" + command_line(m.command, m.args) + "`";
    throw ClaimError(what, config::ConfigError(m.metric_location, m.metric_key, e.what()));
  }
}

ClaimResult ClaimRunner::run(const Claim& claim) {
  ClaimResult r;
  r.id = claim.id;
  r.source = claim.source;
  r.expected = claim.expect;
  r.tolerance = claim.tolerance;
  r.informational = claim.informational;
  try {
    double value = 0;
    if (claim.is_ratio()) {
      double numerator = 0, denominator = 0;
      try {
        numerator = measure(claim.value);
      } catch (const ClaimError& e) {
        throw ClaimError(std::string("numerator: ") + e.what(), e.input, e.internal);
      }
      try {
        denominator = measure(*claim.denominator);
      } catch (const ClaimError& e) {
        throw ClaimError(std::string("denominator: ") + e.what(), e.input, e.internal);
      }
      if (denominator == 0) {
        // The claim divides by a quantity its command does not have (an NPU's busy time under
        // cpu-only): the claims file's mistake, named at the metric's line (exit 2, as a missing
        // metric; it exited 3 as if the claim had been measured and missed).
        const Measurement& d = *claim.denominator;
        throw ClaimError("denominator: metric '" + d.metric + "' is 0",
                         config::ConfigError(d.metric_location, d.metric_key,
                                             "'" + d.metric + "' is 0 in the result of `" + command_line(d.command, d.args) +
                                                 "`: a ratio cannot divide by it"));
      }
      value = numerator / denominator;
    } else {
      value = measure(claim.value);
    }
    // A ratio of a tiny denominator (or a metric past double's range): no error can be computed.
    if (!std::isfinite(value)) throw ClaimError("the simulated value is not a finite number (" + fmt::format("{}", value) + ")");
    r.simulated = value;
    r.relative_error = std::abs(value - claim.expect) / claim.expect;
    if (claim.informational) {
      r.status = Status::kInfo;
    } else {
      r.status = r.within_tolerance() ? Status::kPass : Status::kFail;
    }
  } catch (const ClaimError& e) {
    // Informational claims also become ERROR: "informational" waives the tolerance, not the
    // requirement that the claim can be evaluated at all.
    r.status = Status::kError;
    r.message = "claim " + claim.id + ": " + e.what();
    r.input_error = e.input;
    r.internal_error = e.internal;
  }
  return r;
}

std::vector<ClaimResult> ClaimRunner::run_all(const std::vector<Claim>& claims) {
  std::vector<ClaimResult> results;
  results.reserve(claims.size());
  for (const Claim& c : claims) {
    progress_claims(results.size(), claims.size());
    results.push_back(run(c));
  }
  return results;
}

}  // namespace socsim::validation
