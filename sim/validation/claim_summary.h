#pragma once
// The verdict of a validate run: the counts of the last line and the exit status.
//
// Counting rule (contract line `claims: N, within tolerance: K, median abs error: X%`):
// N and K are over ALL claims, informational ones included, and X is the median over every claim
// that produced a number. Informational claims are still measurements of the simulator against
// published data; leaving them out of N would make the line disagree with the table printed
// above it, and a reader can always see which rows are "info". Only the exit status ignores them
// (unless they could not be evaluated at all: an ERROR row always fails the run).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/validation/claim_runner.h"

namespace socsim::validation {

struct Summary {
  std::size_t claims = 0;
  std::size_t within_tolerance = 0;
  std::optional<double> median_abs_error_pct;  // absent when no claim produced a number
  bool passed = false;  // no FAIL and no ERROR row
};

// The median; the mean of the two middle values for an even count. Absent for no values.
std::optional<double> median(std::vector<double> values);

Summary summarize(const std::vector<ClaimResult>& results);

// "claims: 3, within tolerance: 2, median abs error: 4.5%" (one decimal; "n/a" without numbers).
std::string summary_line(const Summary& s);

// 0 when every non-informational claim is within tolerance and every claim could be evaluated,
// else 3 (as a sweep with failed runs). A claim outside tolerance is a finding, not bad input, so
// never 2, and not a crash of socsim, so never 1 (the contract's internal error).
int exit_status(const Summary& s);

}  // namespace socsim::validation
