// longest_time.h: the longest duration read on this thread, named when the simulated clock
// overflows; reset per run; nothing said for sub-second values.
#include "sim/config/longest_time.h"

#include <gtest/gtest.h>

#include "sim/config/config_tree.h"

namespace socsim::config {
namespace {

TEST(LongestTime, SectionTimeRecordsTheLongestWithItsPlace) {
  forget_times_read();
  auto tree = ConfigTree::load_string("a:\n  short: 2 us\n  long: 7200 s\n  mid: 5 s\n", "soc.yaml");
  const auto a = tree.root().child("a");
  (void)a.time("short");
  EXPECT_EQ(longest_time_hint(), "");  // under a second: the overflow is the run's length
  (void)a.time("long");
  (void)a.time("mid");
  EXPECT_EQ(longest_time_hint(), "; the longest duration in the inputs is a.long = 7200 s (soc.yaml:3)");
  forget_times_read();
  EXPECT_FALSE(longest_time_read().has_value());
}

// The work a run asks for follows the longest duration, and stands alone (said to be what
// overflows) when no duration reaches a second; forget_times_read forgets it too.
TEST(LongestTime, TheRunsWorkIsNamedBesideOrInsteadOfADuration) {
  forget_times_read();
  note_run_work("--model m.json with --prompt 9");
  EXPECT_EQ(longest_time_hint(), "; the work asked for is --model m.json with --prompt 9 (no duration in the inputs reaches a second: a "
                                 "smaller model, prompt, decode or batch fits, or a rate of the SoC file or --set (a bandwidth, clock or "
                                 "efficiency) set too low)");
  auto tree = ConfigTree::load_string("a:\n  long: 7200 s\n", "soc.yaml");
  (void)tree.root().child("a").time("long");
  EXPECT_EQ(longest_time_hint(), "; the longest duration in the inputs is a.long = 7200 s (soc.yaml:2); the work asked for is --model m.json with --prompt 9");
  forget_times_read();
  EXPECT_EQ(longest_time_hint(), "");
}

}  // namespace
}  // namespace socsim::config
