// hash_string (sim/core/field_hash.h): every byte of a string counts, whatever its length (the
// word-at-a-time loop and the overlapping last word), and equal strings hash alike.
#include "sim/core/field_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace socsim {
namespace {

TEST(HashString, EveryByteCountsAtEveryLength) {
  for (std::size_t len = 0; len <= 40; ++len) {
    const std::string base(len, 'a');
    std::set<std::size_t> seen = {hash_string(base)};
    for (std::size_t i = 0; i < len; ++i) {
      std::string s = base;
      s[i] = 'b';
      EXPECT_TRUE(seen.insert(hash_string(s)).second) << "length " << len << ", byte " << i << " changed nothing";
    }
    EXPECT_EQ(hash_string(base), hash_string(std::string_view(base)));
  }
  // Lengths differ, contents alike: told apart.
  EXPECT_NE(hash_string("q_proj"), hash_string("q_proj."));
  EXPECT_NE(hash_string(""), hash_string(std::string_view("\0", 1)));
}

}  // namespace
}  // namespace socsim
