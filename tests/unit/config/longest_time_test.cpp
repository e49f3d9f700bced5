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

}  // namespace
}  // namespace socsim::config
