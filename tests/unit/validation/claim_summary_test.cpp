// The last line, the median and the exit status.
#include <gtest/gtest.h>

#include "sim/validation/claim_summary.h"

namespace socsim::validation {
namespace {

ClaimResult result(Status status, std::optional<double> rel, double tolerance = 0.2, bool informational = false) {
  ClaimResult r;
  r.id = "c";
  r.status = status;
  r.relative_error = rel;
  if (rel) r.simulated = 1 + *rel;
  r.expected = 1;
  r.tolerance = tolerance;
  r.informational = informational;
  return r;
}

TEST(ClaimSummary, MedianOddEvenEmpty) {
  EXPECT_DOUBLE_EQ(*median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(*median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(*median({7}), 7);
  EXPECT_FALSE(median({}).has_value());
}

TEST(ClaimSummary, LastLineFormat) {
  Summary s;
  s.claims = 3;
  s.within_tolerance = 2;
  s.median_abs_error_pct = 4.24;
  EXPECT_EQ(summary_line(s), "claims: 3, within tolerance: 2, median abs error: 4.2%");
  s.median_abs_error_pct = 12.0;
  EXPECT_EQ(summary_line(s), "claims: 3, within tolerance: 2, median abs error: 12.0%");
  s.median_abs_error_pct.reset();
  EXPECT_EQ(summary_line(s), "claims: 3, within tolerance: 2, median abs error: n/a");
}

TEST(ClaimSummary, CountsAllClaimsIncludingInformational) {
  const std::vector<ClaimResult> rs = {
      result(Status::kPass, 0.10),
      result(Status::kFail, 0.50),
      result(Status::kInfo, 0.05, 0.2, true),  // within tolerance: counted in K
      result(Status::kInfo, 0.90, 0.2, true),
      result(Status::kError, std::nullopt),     // counted in N, no number for the median
  };
  const Summary s = summarize(rs);
  EXPECT_EQ(s.claims, 5u);
  EXPECT_EQ(s.within_tolerance, 2u);
  EXPECT_NEAR(*s.median_abs_error_pct, 30.0, 1e-9);  // median of 5, 10, 50, 90 %
  EXPECT_EQ(summary_line(s), "claims: 5, within tolerance: 2, median abs error: 30.0%");
}

TEST(ClaimSummary, OddCountMedian) {
  const Summary s = summarize({result(Status::kPass, 0.01), result(Status::kPass, 0.03), result(Status::kPass, 0.02)});
  EXPECT_EQ(summary_line(s), "claims: 3, within tolerance: 3, median abs error: 2.0%");
}

TEST(ClaimSummary, ExitStatus) {
  EXPECT_EQ(exit_status(summarize({result(Status::kPass, 0.1)})), 0);
  // Informational claims never fail the run, however far off.
  EXPECT_EQ(exit_status(summarize({result(Status::kPass, 0.1), result(Status::kInfo, 5.0, 0.2, true)})), 0);
  EXPECT_EQ(exit_status(summarize({result(Status::kPass, 0.1), result(Status::kFail, 0.5)})), 3);
  EXPECT_EQ(exit_status(summarize({result(Status::kPass, 0.1), result(Status::kError, std::nullopt)})), 3);
  EXPECT_EQ(exit_status(summarize({result(Status::kError, std::nullopt, 0.2, true)})), 3);
}

}  // namespace
}  // namespace socsim::validation
