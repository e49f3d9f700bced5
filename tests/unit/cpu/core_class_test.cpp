// Core classes (hw::core_class): resolved from the clusters' speed, not their names or order.
#include <gtest/gtest.h>

#include "sim/hw/cpu/cpu_spec.h"

namespace socsim::hw {
namespace {

CpuClusterSpec cluster(const char* name, double ghz, double fp32_per_cycle) {
  CpuClusterSpec c;
  c.name = name;
  c.cores = 2;
  c.clock_hz = static_cast<std::uint64_t>(ghz * 1e9);
  c.fp32_flops_per_cycle = fp32_per_cycle;
  return c;
}

TEST(CoreClass, RanksClustersByOneCoresFp32Rate) {
  CpuSpec cpu;
  // 8 Gen 3's clusters listed slowest first, under other names.
  cpu.clusters = {cluster("small", 2.3, 4), cluster("medium", 3.0, 8), cluster("big", 3.3, 16)};
  EXPECT_EQ(core_class(cpu, 0), CoreClass::kLittle);
  EXPECT_EQ(core_class(cpu, 1), CoreClass::kMid);
  EXPECT_EQ(core_class(cpu, 2), CoreClass::kPrime);
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kPrime)->name, "big");
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kMid)->name, "medium");
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kLittle)->name, "small");
  // A faster clock at fewer FLOPs per cycle: the rate decides (3.0 x 8 = 24 > 4.0 x 4 = 16).
  cpu.clusters = {cluster("a", 4.0, 4), cluster("b", 3.0, 8), cluster("c", 1.0, 4)};
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kPrime)->name, "b");
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kMid)->name, "a");
}

TEST(CoreClass, TiesKeepTheFilesOrderAndFewClustersHaveNoLittle) {
  CpuSpec cpu;
  cpu.clusters = {cluster("x", 2.0, 8), cluster("y", 2.0, 8)};  // two equal clusters: prime, mid
  EXPECT_EQ(core_class(cpu, 0), CoreClass::kPrime);
  EXPECT_EQ(core_class(cpu, 1), CoreClass::kMid);
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kLittle), nullptr);
  cpu.clusters = {cluster("p", 3.0, 8), cluster("m1", 2.0, 8), cluster("m2", 2.0, 8), cluster("l", 1.0, 8)};
  EXPECT_EQ(core_class(cpu, 1), CoreClass::kMid);
  EXPECT_EQ(core_class(cpu, 2), CoreClass::kMid);
  EXPECT_EQ(core_class(cpu, 3), CoreClass::kLittle);
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kMid)->name, "m1");  // the first of the class
  cpu.clusters = {cluster("only", 2.0, 8)};  // one cluster serves every class
  for (const auto c : {CoreClass::kPrime, CoreClass::kMid, CoreClass::kLittle}) EXPECT_EQ(cluster_of_class(cpu, c)->name, "only");
}

TEST(CoreClass, ConventionalNamesAreTheClassesWhateverTheClocks) {
  CpuSpec cpu;
  // The shipped names: a what-if that slows the mid cores below the little ones moves nothing.
  cpu.clusters = {cluster("prime", 3.3, 16), cluster("mid", 1.1, 8), cluster("little", 2.3, 4)};
  EXPECT_EQ(core_class(cpu, 1), CoreClass::kMid);
  EXPECT_EQ(core_class(cpu, 2), CoreClass::kLittle);
  // Prime and little only: a mid core is asked of the prime cluster.
  cpu.clusters = {cluster("little", 2.0, 4), cluster("prime", 3.0, 8)};
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kMid)->name, "prime");
  // Mid and little only: prime is the fastest.
  cpu.clusters = {cluster("little", 2.0, 4), cluster("mid", 3.0, 8)};
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kPrime)->name, "mid");
  EXPECT_EQ(cluster_of_class(cpu, CoreClass::kLittle)->name, "little");
}

}  // namespace
}  // namespace socsim::hw
