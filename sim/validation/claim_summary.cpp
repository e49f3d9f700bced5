#include "sim/validation/claim_summary.h"

#include <fmt/format.h>

#include <algorithm>

namespace socsim::validation {

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  if (values.size() % 2 == 1) return values[mid];
  return (values[mid - 1] + values[mid]) / 2;
}

Summary summarize(const std::vector<ClaimResult>& results) {
  Summary s;
  s.claims = results.size();
  s.passed = true;
  std::vector<double> errors_pct;
  for (const ClaimResult& r : results) {
    if (r.within_tolerance()) ++s.within_tolerance;
    if (r.relative_error) errors_pct.push_back(*r.relative_error * 100);
    if (r.status == Status::kFail || r.status == Status::kError) s.passed = false;
  }
  s.median_abs_error_pct = median(std::move(errors_pct));
  return s;
}

std::string summary_line(const Summary& s) {
  const std::string median = s.median_abs_error_pct ? fmt::format("{:.1f}%", *s.median_abs_error_pct) : "n/a";
  return fmt::format("claims: {}, within tolerance: {}, median abs error: {}", s.claims, s.within_tolerance, median);
}

int exit_status(const Summary& s) { return s.passed ? 0 : 3; }

}  // namespace socsim::validation
