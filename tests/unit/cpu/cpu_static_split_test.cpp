// Kernels costed by their instruction mix (simd_uops_per_op over the cores' simd_pipes), the
// static thread split that leaves the fast core waiting for the slow ones, and phases only one
// thread runs (max_threads): the mechanisms of llama.cpp's CPU kernels (kernels/llamacpp/).
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/hw/cpu/cpu_complex.h"
#include "tests/unit/cpu/cpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::CpuBench;
using testing::timed;

CpuSpec piped_spec() {
  auto s = testing::small_cpu_spec();
  s.clusters[0].simd_pipes = 4;  // prime: 2 GHz
  s.clusters[1].simd_pipes = 2;  // mid: 1 GHz
  return s;
}

CpuTask mix_task(double ops, double uops_per_op, bool even) {
  CpuTask t;
  t.name = "vec_dot";
  t.ops = ops;
  t.dtype = DType::kInt8;
  t.simd_uops_per_op = uops_per_op;
  t.even_split = even;
  return t;
}

TEST(CpuStaticSplit, RateFollowsPipesAndMicroOps) {
  // 0.5 micro-ops per op: prime issues 4 per cycle = 8 ops/cycle, mid 2 = 4 ops/cycle.
  const auto spec = piped_spec();
  EXPECT_DOUBLE_EQ(task_ops_per_cycle(spec.clusters[0], mix_task(1, 0.5, false)), 8.0);
  EXPECT_DOUBLE_EQ(task_ops_per_cycle(spec.clusters[1], mix_task(1, 0.5, false)), 4.0);
  // Without simd_pipes the cluster cannot run such a kernel: the error names the key.
  const auto plain = testing::small_cpu_spec();
  try {
    (void)task_ops_per_cycle(plain.clusters[1], mix_task(1, 0.5, false));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cpu.clusters.mid.simd_pipes"), std::string::npos) << e.what();
  }
}

TEST(CpuStaticSplit, CoresWithoutDotProductsRunTheEmulatedMix) {
  // A kernel of 0.5 micro-ops per op whose SDOTs cost 1.5 per op when emulated: the mid core
  // (2 pipes) does 4 ops/cycle with dot products, 2 / 1.5 = 4/3 without.
  auto spec = piped_spec();
  CpuTask t = mix_task(1, 0.5, false);
  t.simd_uops_per_op_no_dotprod = 1.5;
  EXPECT_DOUBLE_EQ(task_ops_per_cycle(spec.clusters[1], t), 4.0);
  spec.clusters[1].dotprod = false;
  EXPECT_DOUBLE_EQ(task_ops_per_cycle(spec.clusters[1], t), 2.0 / 1.5);
  t.simd_uops_per_op_no_dotprod = 0;  // a kernel without dot products: the same mix everywhere
  EXPECT_DOUBLE_EQ(task_ops_per_cycle(spec.clusters[1], t), 4.0);
}

TEST(CpuStaticSplit, EvenSplitWaitsForTheSlowestCore) {
  // 3 threads = prime + 2 mid, 1.2e6 ops at 0.5 micro-ops per op.
  // Even: 4e5 ops per thread; prime 4e5 / 8 = 5e4 cycles at 2 GHz = 25 us, mid 4e5 / 4 = 1e5
  // cycles at 1 GHz = 100 us: the op ends at 100 us.
  // By throughput (16 : 2 x 4 = 16 Gops/s : 8 Gops/s): prime 8e5 ops = 50 us, each mid 2e5 = 50 us.
  for (const bool even : {true, false}) {
    CpuBench b(piped_spec());
    Tick end = 0;
    b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest(mix_task(1.2e6, 0.5, even), 3), end), "t");
    EXPECT_EQ(b.sim.run(), RunResult::kIdle);
    EXPECT_EQ(end, (even ? 100 : 50) * kMicrosecond) << (even ? "even" : "by throughput");
    EXPECT_DOUBLE_EQ(b.cpu.ops_done("prime"), even ? 4e5 : 8e5);
    // Every core is held until its cluster's part ends; the prime core's part ends first.
    EXPECT_EQ(b.cpu.core_busy("prime"), (even ? 25 : 50) * kMicrosecond);
    EXPECT_EQ(b.cpu.core_busy("mid"), (even ? 200 : 100) * kMicrosecond);
  }
}

TEST(CpuStaticSplit, MaxThreadsRunsAPhaseOnOneCore) {
  // A scalar INIT phase of 2e5 ops asked for 3 threads runs on the prime core alone:
  // 2e5 cycles at 2 GHz = 100 us, no mid core touched. The same cap holds on a named cluster.
  CpuBench b(piped_spec());
  CpuTask t{"quantize", 2e5, DType::kFp32, 0, 0};
  t.scalar = true;
  t.max_threads = 1;
  Tick end = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest(t, 3), end), "init");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 100 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_busy("mid"), 0u);
  EXPECT_EQ(b.cpu.compute_time(t, "mid", 4), 200 * kMicrosecond);  // 2e5 cycles at 1 GHz on one core
}

}  // namespace
}  // namespace socsim::hw
