// The allocator set-up main() makes: the heap's first MiBs marked for transparent huge pages
// (where the kernel offers them on request), so a run's small blocks fault in 2 MiB at a time.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/host_allocator.h"
#include "tests/support/scratch_dir.h"

namespace socsim {
namespace {

TEST(HostAllocator, HugePagesOnRequestReadsTheBracketedChoice) {
  const auto dir = test::fresh_scratch_dir("socsim_thp_", "enabled");
  const auto with = [&](const std::string& text) {
    const auto file = dir / "enabled";
    std::ofstream(file) << text;
    return huge_pages_on_request(file.string());
  };
  EXPECT_TRUE(with("always [madvise] never\n"));
  EXPECT_TRUE(with("[always] madvise never\n"));
  EXPECT_FALSE(with("always madvise [never]\n"));
  EXPECT_FALSE(with(""));
  EXPECT_FALSE(huge_pages_on_request((dir / "absent").string()));
}

// The flags of the mapping holding `address` in /proc/self/smaps ("" when none holds it).
std::string vm_flags_at(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = a >= lo && a < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

TEST(HostAllocator, ABlockOfARunLandsInTheHeapMarkedForHugePages) {
  const bool applies = heap_reserve_applies();
  ASSERT_EQ(keep_freed_memory_for_reuse(), applies);
  if (!applies) GTEST_SKIP() << "no reserve here (a sanitizer's allocator, a process limit, or no huge pages on request)";
  // A block below the mmap threshold comes from the heap's free top, the marked range.
  void* block = std::malloc(std::size_t{8} << 20);
  ASSERT_NE(block, nullptr);
  const std::string flags = vm_flags_at(static_cast<char*>(block) + (std::size_t{4} << 20));
  std::free(block);
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
}

}  // namespace
}  // namespace socsim
