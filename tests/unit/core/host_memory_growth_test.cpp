// The host memory guard for memory kept between two of the event loop's checks (lowering caches
// filling within a few events): note_host_growth checks the limit every kGrowthCheckBytes, and
// the limit's message rounds up so that a size just past it reads as more.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/host_memory.h"

namespace socsim {
namespace {

TEST(HostMemoryGrowth, ChecksTheLimitOncePerGrowthStep) {
  const std::uint64_t resident = resident_bytes();
  ASSERT_GT(resident, std::uint64_t{1} << 20);
  {
    // No limit and no poll: growth is not even counted.
    for (int i = 0; i < 4; ++i) EXPECT_NO_THROW(note_host_growth(kGrowthCheckBytes));
  }
  const ScopedHostMemoryLimit limit(std::uint64_t{1} << 20);  // below what the process holds already
  // The counter may hold growth left from other tests on this thread: one full step checks, and
  // the check throws, which also starts the count over.
  EXPECT_THROW(note_host_growth(kGrowthCheckBytes), HostMemoryExceeded);
  EXPECT_NO_THROW(note_host_growth(kGrowthCheckBytes - 1));  // below one step: no /proc read
  EXPECT_THROW(note_host_growth(1), HostMemoryExceeded);     // the step completed: checked
  EXPECT_NO_THROW(note_host_growth(kGrowthCheckBytes / 2));
}

TEST(HostMemoryGrowth, MessageRoundsUpToTheNextMiB) {
  const std::uint64_t limit = std::uint64_t{200} << 20;
  const std::string holds = HostMemoryExceeded(limit + 1, limit).what();
  EXPECT_NE(holds.find("holds 201 MiB of host memory, more than the limit of 200 MiB"), std::string::npos) << holds;
  const std::string would = HostMemoryExceeded(limit + 1, limit, (std::uint64_t{11} << 20) - 5).what();
  EXPECT_NE(would.find("would hold 201 MiB of host memory with the next 11 MiB it allocates"), std::string::npos) << would;
}

// A short string lives in its object (no heap); a long one holds its capacity and terminator.
TEST(HostMemoryGrowth, StringHeapBytesAreTheAllocationOnly) {
  const std::string empty, short_text = "ab";
  EXPECT_EQ(string_heap_bytes(empty), 0u);
  EXPECT_EQ(string_heap_bytes(short_text), 0u);
  std::string long_text(1000, 'x');
  EXPECT_GE(string_heap_bytes(long_text), 1001u);
  EXPECT_EQ(string_heap_bytes(long_text), long_text.capacity() + 1);
  long_text.reserve(5000);
  EXPECT_EQ(string_heap_bytes(long_text), long_text.capacity() + 1);
}

}  // namespace
}  // namespace socsim
