// HeteroLLM's partitions costed in their step (step_context.h): the host and the GPU's in-order
// queue replayed by hand, and the solver choosing by the step where the GPU is home.
#include <gtest/gtest.h>

#include <random>

#include "sim/systems/heterollm/partition_solver.h"
#include "sim/systems/heterollm/step_context.h"
#include "tests/unit/systems/heterollm_test_util.h"

namespace socsim::systems {
namespace {

using heterollm::CutKind;
using heterollm::GroupCost;
using heterollm::StepContext;
using namespace heterollm_test;

constexpr Tick kSubmit = 15;

GroupCost gpu_only(Tick queue, std::uint32_t submissions = 1) {
  GroupCost g;
  g.gpu = queue, g.submissions = submissions;
  return g;
}
GroupCost npu_only(Tick time) {
  GroupCost g;
  g.npu = true, g.npu_time = time;
  return g;
}
GroupCost split(Tick gpu, Tick npu) {
  GroupCost g = npu_only(npu);
  g.gpu = gpu, g.submissions = 1;
  return g;
}

// One group, then `n` kernels of `each`, then the sampler's wait.
StepContext group_then_kernels(int n, Tick each) {
  StepContext s;
  s.add_group(0);
  for (int i = 0; i < n; ++i) s.add_kernel(each);
  s.add_host_wait();
  return s;
}

TEST(HeteroStepContext, ASubmissionBoundStepHidesAGpuOnlyMatmulButNotAnNpuPart) {
  const StepContext s = group_then_kernels(4, 1);
  // GPU-only (100 on the queue): submitted at 15, runs to 115; the four kernels are submitted at
  // 30, 45, 60, 75 and queue behind it: 116, 117, 118, 119.
  EXPECT_EQ(s.time({gpu_only(100)}, kSubmit), 119u);
  // On the NPU, taking 90: the host waits to 90, then submits the four at 105 .. 150, each ending
  // 1 later: 151, slower in the step though faster alone.
  EXPECT_EQ(s.time({npu_only(90)}, kSubmit), 151u);
}

TEST(HeteroStepContext, ALongGpuPartRebuildsTheLead) {
  const StepContext s = group_then_kernels(4, 1);
  // Split: the GPU part is submitted at 15 and runs to 215; the NPU part ends at 90, when the
  // host submits the four (105 .. 150) while the GPU part still runs: they end 216 .. 219.
  EXPECT_EQ(s.time({split(200, 90)}, kSubmit), 219u);
  // Whole on the GPU (300): 315, then 316 .. 319.
  EXPECT_EQ(s.time({gpu_only(300)}, kSubmit), 319u);
}

TEST(HeteroStepContext, TheGraphCallRunsWhileItsProducerDoesAndWaitsForTheNpu) {
  StepContext s;
  s.add_kernel(100);  // submitted at 15, runs to 115
  s.add_group(0);
  s.add_group(0);
  s.add_host_wait();
  GroupCost g = npu_only(90);
  g.npu_call = 60;
  // First part: called at 15, the call done at 75, its input at 115: ends 115 + 30 = 145. The
  // second: called when the NPU is free (145), done at 205, ends 235.
  EXPECT_EQ(s.time({g}, kSubmit), 235u);
  // Without the overlap: 115 + 90 = 205, then 295.
  EXPECT_EQ(s.time({npu_only(90)}, kSubmit), 295u);
}

TEST(HeteroStepContext, AGpuBoundStepKeepsTheFasterPart) {
  const StepContext s = group_then_kernels(4, 50);
  // GPU-only: 15 + 100 = 115, then 4 x 50 back to back: 315.
  EXPECT_EQ(s.time({gpu_only(100)}, kSubmit), 315u);
  // The NPU part: 90; the first kernel submitted at 105 ends at 155, the next three at 205, 255,
  // 305: 10 faster, the part's own saving.
  EXPECT_EQ(s.time({npu_only(90)}, kSubmit), 305u);
}

TEST(HeteroStepContext, EachSubmissionOfAGroupIsPaidAndHostWaitsDrainTheQueue) {
  StepContext s;
  s.add_kernel(40);
  s.add_host_wait();  // host at 15 waits for the kernel: 55
  s.add_group(0);     // two kernels of 15, submitted at 70 and 85: end 85 and 100
  s.add_kernel(0);    // submitted at 100, ends 100
  EXPECT_EQ(s.time({gpu_only(30, 2)}, kSubmit), 100u);
  EXPECT_THROW(s.time({}, kSubmit), std::logic_error);  // a group without its cost
}

TEST(HeteroStepContext, TheStepNeverGetsFasterWhenACostGrows) {
  // The solver's bounded search relies on it: a bound of a group's cost bounds the step.
  std::mt19937 gen(7);
  std::uniform_int_distribution<Tick> t(0, 100);
  for (int trial = 0; trial < 200; ++trial) {
    StepContext s;
    for (int i = 0; i < 12; ++i) {
      const int r = static_cast<int>(gen() % 4);
      if (r == 0) s.add_group(static_cast<std::uint32_t>(gen() % 2));
      else if (r == 1) s.add_host_wait();
      else s.add_kernel(t(gen));
    }
    std::vector<GroupCost> g{split(t(gen), t(gen)), gen() % 2 == 0 ? gpu_only(t(gen), 2) : npu_only(t(gen))};
    for (auto& c : g) c.npu_call = c.npu ? t(gen) : 0;  // at times longer than the part: capped
    const Tick before = s.time(g, kSubmit);
    GroupCost& c = g[trial % 2];
    (trial % 2 == 0 ? c.gpu : c.npu_time) += t(gen);
    EXPECT_GE(s.time(g, kSubmit), before) << trial;
  }
}

// DRAM sharing (share_dram): hand-computed fluid runs. Capacities in bytes per tick, times in ticks.
constexpr double kPerTick = static_cast<double>(kSecond);

TEST(HeteroStepContext, TwoStreamsShareDramMaxMinFairly) {
  using heterollm::share_dram;
  // Equal demands (1 byte a tick each) over 1.5: 0.75 each while both run. `a` alone 0..50 (50
  // left), both for 66.67 (a ends at 116.67), b's last 50 alone: 166.67. Rounded up.
  EXPECT_EQ(share_dram({0, 100, 100}, {50, 100, 100}, 1.5 * kPerTick), std::make_pair(Tick{117}, Tick{167}));
  // A small demand (0.5) keeps its rate; the other takes the rest (1.0 of 1.5): 2/3 of its own.
  // a ends at 100, b has 33.33 left then: 133.33.
  EXPECT_EQ(share_dram({0, 100, 50}, {0, 100, 150}, 1.5 * kPerTick), std::make_pair(Tick{100}, Tick{134}));
  // Within the capacity, or a stream moving nothing, or no overlap: each as alone.
  EXPECT_EQ(share_dram({0, 100, 100}, {0, 100, 100}, 2 * kPerTick), std::make_pair(Tick{100}, Tick{100}));
  EXPECT_EQ(share_dram({0, 100, 0}, {0, 100, 300}, 1 * kPerTick), std::make_pair(Tick{100}, Tick{100}));
  EXPECT_EQ(share_dram({0, 100, 100}, {100, 100, 100}, 1 * kPerTick), std::make_pair(Tick{100}, Tick{200}));
  // A compute-bound part (100 ticks, 50 bytes) whose flow goes at its cap (1 a tick) beside its
  // compute: at 0.75 each its flow ends at 66.67, before its compute: it keeps its 100. The other
  // (memory-bound, 100 bytes at 1) has 50 left then, alone: 116.67.
  EXPECT_EQ(share_dram({0, 100, 50, kPerTick}, {0, 100, 100, kPerTick}, 1.5 * kPerTick), std::make_pair(Tick{100}, Tick{117}));
  // Spread evenly over its time instead (rate 0: bytes over time alone, 0.5), it would keep its
  // share and the other would take 1.0: 0..100 at 1.0, done at 100. The cap decides who waits.
  EXPECT_EQ(share_dram({0, 100, 50}, {0, 100, 100, kPerTick}, 1.5 * kPerTick), std::make_pair(Tick{100}, Tick{100}));
}

TEST(HeteroStepContext, AGroupsPartsShareDramInTheStep) {
  StepContext s;
  s.add_group(0);
  s.add_host_wait();
  GroupCost g = split(100, 100);
  g.gpu_bytes = 100, g.npu_bytes = 100;  // 1 byte a tick each, alone
  // Without sharing: the NPU part 0..100, the GPU part submitted at 15, 15..115.
  EXPECT_EQ(s.time({g}, kSubmit), 115u);
  s.set_shared_bandwidth(1.5 * kPerTick);
  // Sharing 1.5: the NPU alone to 15 (85 left), both at 0.75 until the NPU ends at 128.33, the
  // GPU's last 15 alone: 143.33, rounded up.
  EXPECT_EQ(s.time({g}, kSubmit), 144u);
  EXPECT_EQ(s.time({g}, kSubmit, false), 115u);  // the replay for bounds
}

TEST(HeteroStepContext, TheReplayWithoutSharingOfBoundsBoundsTheReplayWithItAndResumes) {
  // The solver's bounded search relies on it: bounds are replayed without sharing (step_decisions).
  std::mt19937 gen(11);
  std::uniform_int_distribution<Tick> t(0, 100);
  for (int trial = 0; trial < 200; ++trial) {
    StepContext s;
    s.set_shared_bandwidth(static_cast<double>(t(gen) + 1) * kPerTick / 50);
    for (int i = 0; i < 12; ++i) {
      const int r = static_cast<int>(gen() % 4);
      if (r == 0) s.add_group(static_cast<std::uint32_t>(gen() % 2));
      else if (r == 1) s.add_host_wait();
      else s.add_kernel(t(gen));
    }
    std::vector<GroupCost> g{split(t(gen), t(gen)), split(t(gen), t(gen))};
    for (auto& c : g) c.npu_call = t(gen), c.gpu_bytes = static_cast<double>(t(gen)), c.npu_bytes = static_cast<double>(t(gen));
    const Tick with = s.time(g, kSubmit);
    EXPECT_GE(with, s.time(g, kSubmit, false)) << trial;
    // A replay resumed where before() stopped is the whole replay, with or without sharing.
    for (const bool sharing : {true, false}) {
      for (const std::uint32_t group : {0u, 1u}) {
        EXPECT_EQ(s.time(g, kSubmit, sharing, s.before(group, g, kSubmit, sharing)), s.time(g, kSubmit, sharing)) << trial;
      }
    }
    // The solver's in-step bound of a candidate of group `group`: the replay with sharing up to
    // the group's first instance (which does not read its cost, so every candidate's), then
    // without sharing with the group's parts cut to bounds. From the same state the replay without
    // sharing is monotone and sharing only delays, so it bounds the step with sharing, and it is
    // at least the bound replayed without sharing from the start.
    for (const std::uint32_t group : {0u, 1u}) {
      const StepContext::Replay before = s.before(group, g, kSubmit, true);
      std::vector<GroupCost> bounds = g;
      bounds[group].gpu -= std::min(bounds[group].gpu, t(gen));
      bounds[group].npu_time -= std::min(bounds[group].npu_time, t(gen));
      bounds[group].gpu_bytes = bounds[group].npu_bytes = 0;  // (a bound's replay does not share)
      const Tick bound = s.time(bounds, kSubmit, false, before);
      EXPECT_GE(with, bound) << trial << " group " << group;
      EXPECT_GE(bound, s.time(bounds, kSubmit, false)) << trial << " group " << group;
    }
    GroupCost& c = g[trial % 2];
    const Tick cut = t(gen);
    (trial % 2 == 0 ? c.gpu : c.npu_time) -= std::min(cut, trial % 2 == 0 ? c.gpu : c.npu_time);
    EXPECT_GE(with, s.time(g, kSubmit, false)) << trial;
  }
}

// A model's layers repeat their items: the replay skips the blocks left once it stands at the
// same place in two consecutive ones, and must give exactly the Tick of replaying every block.
TEST(HeteroStepContext, SkippingRepeatedLayersGivesTheReplaysTick) {
  std::mt19937 gen(23);
  std::uniform_int_distribution<Tick> t(0, 100'000);
  int skipped = 0;
  for (int trial = 0; trial < 300; ++trial) {
    StepContext s;
    s.set_shared_bandwidth(static_cast<double>(t(gen) + 1) * kPerTick / 50'000);
    // A head of a few items, 3 to 40 identical layers, a tail: as decide_step builds a step.
    const auto add_random = [&](int count) {
      for (int i = 0; i < count; ++i) {
        const int r = static_cast<int>(gen() % 5);
        if (r == 0) s.add_group(static_cast<std::uint32_t>(gen() % 3));
        else if (r == 1 && gen() % 4 == 0) s.add_host_wait();
        else s.add_kernel(t(gen) / (r == 4 ? 100 : 1));
      }
    };
    add_random(static_cast<int>(gen() % 4));
    std::vector<std::pair<int, std::uint64_t>> layer;  // (kind, value): one layer's items
    const int items = 1 + static_cast<int>(gen() % 8);
    for (int i = 0; i < items; ++i) {
      const int r = static_cast<int>(gen() % 4);
      layer.emplace_back(r == 0 ? 0 : r == 1 && gen() % 3 == 0 ? 2 : 1, r == 0 ? gen() % 3 : t(gen) / (gen() % 2 == 0 ? 50 : 1));
    }
    const int layers = 3 + static_cast<int>(gen() % 38);
    for (int l = 0; l < layers; ++l) {
      for (const auto& [kind, value] : layer) {
        if (kind == 0) s.add_group(static_cast<std::uint32_t>(value));
        else if (kind == 2) s.add_host_wait();
        else s.add_kernel(value);
      }
    }
    add_random(static_cast<int>(gen() % 4));
    s.add_host_wait();
    std::vector<GroupCost> g;
    for (int i = 0; i < 3; ++i) {
      const int kind = static_cast<int>(gen() % 3);
      GroupCost c = kind == 0 ? gpu_only(t(gen), 1 + static_cast<std::uint32_t>(gen() % 3)) : kind == 1 ? npu_only(t(gen)) : split(t(gen), t(gen));
      c.npu_call = c.npu ? t(gen) / 4 : 0;
      c.gpu_bytes = static_cast<double>(t(gen)), c.npu_bytes = static_cast<double>(t(gen));
      c.gpu_rate = static_cast<double>(gen() % 2) * kPerTick, c.npu_rate = static_cast<double>(gen() % 2) * kPerTick;
      g.push_back(c);
    }
    const Tick submit = 1 + t(gen) / 20;
    StepContext whole = s;
    whole.set_repeat_shortcut(false);
    for (const bool sharing : {true, false}) {
      const Tick expect = whole.time(g, submit, sharing);
      EXPECT_EQ(s.time(g, submit, sharing), expect) << trial << (sharing ? " sharing" : "");
      for (const std::uint32_t group : {0u, 1u, 2u}) {
        EXPECT_EQ(s.time(g, submit, sharing, whole.before(group, g, submit, sharing)), expect) << trial << " from group " << group;
      }
    }
    EXPECT_EQ(whole.items_skipped(), 0u);
    skipped += s.items_skipped() > 0 ? 1 : 0;
  }
  // Most replays reach a steady layer (the test is of something: the shortcut is taken).
  EXPECT_GT(skipped, 150) << skipped;
}

// The solver over a decode matmul whose split is faster alone, in a submission-bound step
// (20 short kernels after it): it keeps the op on the GPU, bounded search or not.
TEST(HeteroStepContext, TheSolverChoosesByTheStep) {
  SolverParams p = params();
  p.decode = true;
  p.sync = 10'000;
  const Tick submit = 15'000;
  // Alone: gpu-only 130,000 (one submission included), npu-only 200,000 + sync; row cuts balance
  // near 60% of the columns on the GPU at about 79,000 + sync.
  const heterollm::CostFn cost = linear(200, 130);
  const auto alone = heterollm::solve(1, 4096, 4096, p, cost);
  ASSERT_EQ(alone.kind, CutKind::kRow);
  ASSERT_LT(alone.t_part, 130'000u);
  EXPECT_FALSE(alone.in_step);

  const StepContext step = group_then_kernels(20, 1'000);
  p.in_context = [&](const Partition& c) {
    GroupCost g = c.uses_npu() ? npu_only(c.t_npu) : GroupCost{};
    if (c.uses_gpu()) g.gpu = c.t_gpu - submit, g.submissions = 1;
    return step.time({g}, submit);
  };
  const auto in_step = heterollm::solve(1, 4096, 4096, p, cost);
  EXPECT_EQ(in_step.kind, CutKind::kGpuOnly);
  EXPECT_TRUE(in_step.in_step);
  // GPU-only: the queue runs to 130,000 and the host, submitting every 15,000, passes it at the
  // ninth kernel: the last is submitted at 21 x 15,000 and ends 1,000 later.
  EXPECT_EQ(in_step.t_total, 316'000u);
  EXPECT_EQ(in_step.t_part, 130'000u);
  // A row cut whose NPU part ends last: the host submits the 20 kernels after it.
  std::vector<Partition> all;
  heterollm::solve(1, 4096, 4096, p, cost, &all);
  for (const auto& c : all) {
    if (c.kind == CutKind::kRow && c.t_npu >= c.t_gpu) {
      EXPECT_EQ(c.t_total, c.t_npu + 20 * submit + 1'000) << c.describe();
    }
  }
  // Bounded searches (parts at 80% and 60% of their times) make the exhaustive search's choice.
  const heterollm::CostFn bound = scaled(cost, 0.8), coarse = scaled(cost, 0.6);
  const auto bounded = heterollm::solve(1, 4096, 4096, p, cost, nullptr, &bound, &coarse);
  EXPECT_EQ(bounded.describe(), in_step.describe());
  EXPECT_EQ(bounded.t_total, in_step.t_total);
}

}  // namespace
}  // namespace socsim::systems
