// The sweep's progress line (drawn only on a terminal).
#include <gtest/gtest.h>

#include "sim/cli/progress_bar.h"

namespace socsim::cli {
namespace {

TEST(ProgressBar, LineShowsCountElapsedAndEstimate) {
  EXPECT_EQ(progress_line("runs", 1, 4, 2.0, 8), "[##......] 1/4 runs  2.0 s, ~6.0 s left");
  EXPECT_EQ(progress_line("runs", 4, 4, 8.0, 8), "[########] 4/4 runs  8.0 s");
  EXPECT_EQ(progress_line("runs", 0, 0, 0.0, 4), "[####] 0/0 runs  0.0 s");
}

TEST(ProgressBar, DisabledBarDrawsNothing) {
  testing::internal::CaptureStderr();
  {
    ProgressBar bar("runs", 3, false);
    bar.update(1);
    bar.update(3);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace socsim::cli
