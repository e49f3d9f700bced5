// The sweep's progress line: a bar redrawn on a terminal, plain spaced lines in a log.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/cli/progress_bar.h"

namespace socsim::cli {
namespace {

TEST(ProgressBar, LineShowsCountElapsedAndEstimate) {
  EXPECT_EQ(progress_line("runs", 1, 4, 2.0, 8), "[##......] 1/4 runs  2.0 s, ~6.0 s left");
  EXPECT_EQ(progress_line("runs", 4, 4, 8.0, 8), "[########] 4/4 runs  8.0 s");
  EXPECT_EQ(progress_line("runs", 0, 0, 0.0, 4), "[####] 0/0 runs  0.0 s");
  EXPECT_EQ(progress_line("runs", 1, 4, 2.0, 0), "1/4 runs  2.0 s, ~6.0 s left");  // a log line: no bar
}

TEST(ProgressBar, OutsideATerminalLogLinesArePlainAndSpaced) {
  testing::internal::CaptureStderr();  // not a terminal
  {
    ProgressBar bar("runs", 4, NotATerminal::kLogLines, 0, 3600);
    bar.update(1);
    bar.update(2);  // within the hour: not again
  }
  const std::string text = testing::internal::GetCapturedStderr();
  EXPECT_EQ(text.rfind("socsim: 1/4 runs  ", 0), 0u) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
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
