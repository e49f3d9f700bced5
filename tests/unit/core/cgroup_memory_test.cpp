// The default host-memory limit follows a control group's limit (a container, a Slurm job) when
// it is lower than the machine's memory: v2 and v1 layouts, ancestors' limits, "max".
#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/host_memory.h"
#include "tests/support/scratch_dir.h"

namespace socsim {
namespace {

void put(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

TEST(CgroupMemory, V2TakesTheLeastLimitUpTheTree) {
  const auto root = test::fresh_scratch_dir("socsim_cgroup_", "v2");
  put(root / "memory.max", "max\n");
  put(root / "user.slice" / "memory.max", "8589934592\n");
  put(root / "user.slice" / "job" / "memory.max", "max\n");
  EXPECT_EQ(cgroup_memory_limit("0::/user.slice/job\n", root.string()), 8589934592u);
  put(root / "user.slice" / "job" / "memory.max", "4294967296\n");
  EXPECT_EQ(cgroup_memory_limit("0::/user.slice/job\n", root.string()), 4294967296u);
  EXPECT_EQ(cgroup_memory_limit("0::/\n", root.string()), 0u);  // only "max" at the root
}

TEST(CgroupMemory, V1MemoryControllerAndNoLimit) {
  const auto root = test::fresh_scratch_dir("socsim_cgroup_", "v1");
  put(root / "memory" / "memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
  put(root / "memory" / "docker" / "abc" / "memory.limit_in_bytes", "2147483648\n");
  const std::string cg = "12:pids:/docker/abc\n4:memory:/docker/abc\n1:name=systemd:/docker/abc\n0::/\n";
  EXPECT_EQ(cgroup_memory_limit(cg, root.string()), 2147483648u);
  EXPECT_EQ(cgroup_memory_limit("4:cpu,memory:/docker/abc\n", root.string()), 2147483648u);  // co-mounted controllers
  EXPECT_EQ(cgroup_memory_limit("4:memory:/\n", root.string()), 0u);
  EXPECT_EQ(cgroup_memory_limit("garbage\n\n:::\n", root.string()), 0u);
  EXPECT_EQ(cgroup_memory_limit("4:memory:/missing/group\n", root.string()), 0u);
}

TEST(CgroupMemory, UsableMemoryIsAtMostTheMachines) {
  const auto usable = usable_memory_bytes(), machine = physical_memory_bytes();
  if (machine > 0) {
    EXPECT_LE(usable, machine);
  }
  EXPECT_GT(usable, 0u);
}

}  // namespace
}  // namespace socsim
