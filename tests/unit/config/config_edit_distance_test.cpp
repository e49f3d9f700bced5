// The typo distance behind "did you mean": adjacent swaps count as one edit.
#include <gtest/gtest.h>

#include "sim/config/edit_distance.h"

namespace socsim::config::detail {
namespace {

TEST(ConfigEditDistance, BasicEdits) {
  EXPECT_EQ(edit_distance("peak", "peak"), 0u);
  EXPECT_EQ(edit_distance("pek", "peak"), 1u);      // insertion
  EXPECT_EQ(edit_distance("peaks", "peak"), 1u);    // deletion
  EXPECT_EQ(edit_distance("peek", "peak"), 1u);     // substitution
  EXPECT_EQ(edit_distance("peka", "peak"), 1u);     // adjacent swap
  EXPECT_EQ(edit_distance("chanels", "channels"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("colour", "peak"), 6u);
}

}  // namespace
}  // namespace socsim::config::detail
