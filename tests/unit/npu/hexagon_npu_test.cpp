#include "sim/hw/npu/hexagon_npu.h"

#include <gtest/gtest.h>

#include "npu_test_spec.h"
#include "sim/hw/npu/graph_costs.h"
#include "sim/hw/npu/hmx_gemm.h"

namespace socsim::hw {
namespace {

struct Rig {
  Simulator sim;
  DramModel dram{sim, 10e9, {1.0}};
  HexagonNpu npu{sim, test::small_npu(), dram, nullptr};
  ~Rig() { sim.kill_processes(); }
  Tick run() {
    EXPECT_EQ(sim.run(), RunResult::kIdle);
    return sim.now();
  }
};

// The NPU's plan cache keys on the output width too: INT32 outputs (shadowAttn's raw scores) after
// INT8 ones of the same m, k, n get their own plan, and the INT8 one is still INT8 after them.
TEST(HexagonNpu, GemmPlanCacheKeysOnTheOutputWidth) {
  Rig r;
  const GemmShape q8{32, 64, 128, DType::kInt8}, q32{32, 64, 128, DType::kInt8, 0, 4};
  EXPECT_EQ(r.npu.gemm_plan(q8, OperandHome::kDram)->total.writeback_bytes, 32u * 128u);
  EXPECT_EQ(r.npu.gemm_plan(q32, OperandHome::kDram)->total.writeback_bytes, 4u * 32u * 128u);
  EXPECT_EQ(r.npu.gemm_plan(q8, OperandHome::kDram)->total.writeback_bytes, 32u * 128u);
}

// And on the staged weight width: W4A16's INT4 codes stage a quarter of an FP16 plan's weight bytes.
TEST(HexagonNpu, GemmPlanCacheKeysOnTheStagedWeightWidth) {
  Rig r;
  const GemmShape f16{32, 256, 256, DType::kFp16}, w4{32, 256, 256, DType::kFp16, 0, 0, 4};
  const auto a = r.npu.gemm_plan(f16, OperandHome::kDram)->total.stage_bytes;
  const auto b = r.npu.gemm_plan(w4, OperandHome::kDram)->total.stage_bytes;
  EXPECT_LT(b, a);
  EXPECT_EQ(r.npu.gemm_plan(f16, OperandHome::kDram)->total.stage_bytes, a);
}

TEST(HexagonNpu, DmaPaysSetUpPerTransferThenBytes) {
  Rig r;
  // 10 transfers x 100 ns + 20,000 B at 2 GB/s (the DMA cap) = 1 us + 10 us = 11 us
  r.sim.spawn(r.npu.dma(20000, 10, "t"), "dma");
  EXPECT_EQ(r.run(), 11 * kMicrosecond);
  EXPECT_EQ(r.npu.dma_bytes(), 20000u);
}

TEST(HexagonNpu, HmxCyclesAtTheNpuClock) {
  Rig r;
  r.sim.spawn(r.npu.hmx(320, "t"), "hmx");  // 320 cycles at 1 GHz = 320 ns
  EXPECT_EQ(r.run(), 320 * kNanosecond);
}

TEST(HexagonNpu, HvxSplitsPacketsOverThreads) {
  Rig r;
  r.sim.spawn(r.npu.hvx(1000, 2, "t"), "hvx");  // 1000 packets / 2 threads / 1 per cycle = 500 ns
  EXPECT_EQ(r.run(), 500 * kNanosecond);
}

TEST(HexagonNpu, HvxStreamsCappedPerThreadAndByTheCorePath) {
  Rig r1;
  // One thread: its 1 GB/s cap binds: 1e6 B -> 1 ms.
  r1.sim.spawn(r1.npu.hvx_stream(1'000'000, 1, "t"), "s");
  EXPECT_EQ(r1.run(), 1 * kMillisecond);
  Rig r2;
  // Two threads: 2 x 1 GB/s = 2 GB/s, under the 3 GB/s core cap: 1e6 B -> 0.5 ms.
  r2.sim.spawn(r2.npu.hvx_stream(1'000'000, 2, "t"), "s");
  EXPECT_EQ(r2.run(), 500 * kMicrosecond);
}

TEST(HexagonNpu, TwoConcurrentStreamsShareTheNpuPort) {
  Rig r;
  // DMA (cap 2 GB/s) and two HVX threads (2 x 1 GB/s) under the NPU port cap of 4 GB/s: no port
  // contention, each runs at its own cap. 2e6 B by DMA = 1 ms; 1e6 B by HVX = 0.5 ms.
  Tick dma_done = 0, hvx_done = 0;
  auto dma = [](Rig& g, Tick& done) -> Task<> {
    co_await g.npu.dma(2'000'000, 1, "d");
    done = g.sim.now();
  };
  auto hvx = [](Rig& g, Tick& done) -> Task<> {
    co_await g.npu.hvx_stream(1'000'000, 2, "h");
    done = g.sim.now();
  };
  r.sim.spawn(dma(r, dma_done), "dma");
  r.sim.spawn(hvx(r, hvx_done), "hvx");
  r.run();
  EXPECT_EQ(hvx_done, 500 * kMicrosecond);
  EXPECT_EQ(dma_done, 100 * kNanosecond + 1 * kMillisecond);
}

TEST(HexagonNpu, GraphCallCostsOverheadPlusPerNode) {
  Rig r;
  r.sim.spawn(r.npu.graph_call(3, "g"), "g");  // 250 us + 3 x 40 us = 370 us
  EXPECT_EQ(r.run(), 370 * kMicrosecond);
}

TEST(HexagonNpu, ClientBuffersAddTheirSynchronizationToTheCall) {
  // 250 us + 3 x 40 us, then 1 ms + 1,000,000 B at 2 GB/s = 0.5 ms: 1.87 ms.
  Rig r;
  r.sim.spawn(r.npu.graph_call(3, "g", 1'000'000), "g");
  EXPECT_EQ(r.run(), 1870 * kMicrosecond);
  EXPECT_EQ(r.npu.graph_call_time(3, 1'000'000), 1870 * kMicrosecond);
  EXPECT_EQ(r.npu.graph_call_time(3), 370 * kMicrosecond);  // registered buffers: nothing to synchronize
  // The call's own time: the NPU's engines are not busy while the buffers are synchronized.
  EXPECT_EQ(r.npu.busy().busy(r.sim.now()), 0u);
}

TEST(HexagonNpu, AGraphCallThatOverflowsTimeIsAnError) {
  NpuSpec s = test::small_npu();
  s.graph.client_io_call = kTickMax - 100 * kMicrosecond;  // + 0.37 ms of call + 0.5 ms of bytes
  EXPECT_THROW(graph_execute_time(s.graph, 3, 1'000'000), TimeOverflow);
  EXPECT_EQ(graph_execute_time(s.graph, 3, 0), 370 * kMicrosecond);
}

TEST(HexagonNpu, AddressSpaceLimitIsAnError) {
  Rig r;
  EXPECT_NO_THROW(r.npu.check_mappable(1ULL << 30, "weights"));
  try {
    r.npu.check_mappable(3ULL << 30, "llama-3-8b weights");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("session limit"), std::string::npos);
  }
}

TEST(HmxGemm, GemmThatFitsTcmIsComputeBound) {
  Rig r;
  const auto plan = plan_hmx_gemm(r.npu.spec(), {64, 64, 64, DType::kFp16}, OperandHome::kTcm);
  r.sim.spawn(run_hmx_gemm(r.npu, plan, "g"), "g");
  EXPECT_EQ(r.run(), 80 * kNanosecond);  // 80 cycles (see GemmPlan.AllInTcmIsComputeOnly)
}

TEST(HmxGemm, GemmThatDoesNotFitTcmIsBoundByWeightStaging) {
  Rig r;
  // 32x256x256 FP16 from DRAM: activations resident, 8 blocks of one weight column each.
  // Stage 0: A (1 transfer, 16 KiB) + column 0 (8 transfers, 16 KiB) = 9 x 100 ns + 32768 B / 2 GB/s
  //   = 0.9 us + 16.384 us = 17.284 us.
  // Each next block: stage 8 x 100 ns + 16384 B / 2 GB/s = 8.992 us, and write back the previous
  //   output tile: 100 ns + 2048 B / 2 GB/s = 1.124 us, serialized on the one DMA engine
  //   = 10.116 us, while HMX computes 8 loads x 2 + 8 ops x 5 + 1 drain x 8 = 64 ns.
  // Steps: i=0 stages block 1 only (8.992 us); i=1..6 stage block i+1 and write back block i-1
  // (10.116 us each); i=7 writes back block 6 (1.124 us, HMX's 64 ns hidden under it); then the
  // epilogue writes back block 7 (1.124 us).
  const auto plan = plan_hmx_gemm(r.npu.spec(), {32, 256, 256, DType::kFp16}, OperandHome::kDram);
  r.sim.spawn(run_hmx_gemm(r.npu, plan, "g"), "g");
  const Tick expected = 17'284'000 + 8'992'000 + 6 * 10'116'000 + 1'124'000 + 1'124'000;  // 89.22 us
  EXPECT_EQ(r.run(), expected);

}

// A long steady state runs as merged steps (kMaxMergedGemmSteps identical steps as one): on an
// idle NPU its time is still the block-by-block pipeline's (idle_plan_seconds walks it block by
// block), to the picosecond rounding of each merged transfer, with far fewer events.
TEST(HmxGemm, MergedSteadyStateKeepsThePipelinesTime) {
  Rig r;
  // 32x256x8192 FP16 from DRAM: activations resident, 256 blocks of one weight column each.
  const auto plan = plan_hmx_gemm(r.npu.spec(), {32, 256, 8192, DType::kFp16}, OperandHome::kDram);
  ASSERT_GE(plan.blocks.size(), 200u);
  Progress done(r.sim);
  r.sim.spawn(run_hmx_gemm(r.npu, plan, "g", &done), "g");
  const Tick t = r.run();
  const double want = idle_plan_seconds(r.npu.spec(), plan);
  EXPECT_NEAR(to_seconds(t), want, 1e-6 * want);
  EXPECT_EQ(done.value(), plan.blocks.size());  // every block reported to a streaming consumer
  // Block by block a step is a join of three transfers and a compute, several events each (the
  // 8-block GEMM above fires 93, 11 per block); merged, fewer than two per block (465 here when written).
  EXPECT_LT(r.sim.events_fired(), 2 * plan.blocks.size());
}

// The 32x256x8192 FP16 GEMM from DRAM (256 one-column blocks) alone on an NPU of `spec`: its
// simulated seconds against the block-by-block idle pipeline's, and the events it took.
struct IdleGemm {
  double seconds, pipeline_seconds;
  std::uint64_t events, blocks;
};
IdleGemm idle_gemm(const NpuSpec& spec) {
  Simulator sim;
  DramModel dram{sim, 10e9, {1.0}};
  HexagonNpu npu{sim, spec, dram, nullptr};
  const auto plan = plan_hmx_gemm(spec, {32, 256, 8192, DType::kFp16}, OperandHome::kDram);
  sim.spawn(run_hmx_gemm(npu, plan, "g"), "g");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  sim.kill_processes();
  return {to_seconds(sim.now()), idle_plan_seconds(spec, plan), sim.events_fired(), plan.blocks.size()};
}

// With several DMA channels a request's transfers are set up `channels` at a time: a merged step
// pays the rounds its steps paid one by one (8 transfers on 3 channels: 3 rounds per step, not
// 8/3 of one), still the block-by-block pipeline's time.
TEST(HmxGemm, MergedStepsPayEachStepsDmaRounds) {
  NpuSpec spec = test::small_npu();
  spec.dma.channels = 3;
  const IdleGemm g = idle_gemm(spec);
  EXPECT_NEAR(g.seconds, g.pipeline_seconds, 1e-6 * g.pipeline_seconds);
  EXPECT_LT(g.events, 2 * g.blocks);  // merged
}

// Steps whose bound DRAM contention could flip (HMX and DMA within 4x of each other) are not
// merged: with contention coming and going, the sum of the steps' maxima is not the maximum of
// the sums.
TEST(HmxGemm, BalancedStepsAreNotMerged) {
  NpuSpec spec = test::small_npu();
  spec.hmx.fp16_tile_op_cycles = 1400;  // a step: ~11.2 us of HMX against ~10.1 us of DMA
  const IdleGemm g = idle_gemm(spec);
  EXPECT_NEAR(g.seconds, g.pipeline_seconds, 1e-9);
  EXPECT_GT(g.events, 8 * g.blocks);  // block by block
}

// A batch of identical GEMMs staged from DRAM (shadowAttn's Q x K^T per head and sequence) runs
// as copies of one plan: each copy's prologue and epilogue (DMA only) merge with the DMA-bound
// steps around them. On an idle NPU that is the copies run one after another: 16 times the
// 32x256x256 GEMM of GemmThatDoesNotFitTcmIsBoundByWeightStaging (89.22 us each, by hand), to a
// tick per merged DMA request (each flow's end rounds up to a tick), with the same HMX cycles and
// DMA bytes, in far fewer events; a consumer streaming the outputs is refused.
TEST(HmxGemm, CopiesRunBackToBackInMergedSteps) {
  const auto run = [](std::size_t copies, bool one_call) {
    Rig r;
    const auto plan = plan_hmx_gemm(r.npu.spec(), {32, 256, 256, DType::kFp16}, OperandHome::kDram);
    if (one_call) {
      r.sim.spawn(run_hmx_gemm(r.npu, plan, "g", nullptr, copies), "g");
    } else {
      for (std::size_t i = 0; i < copies; ++i) {
        r.sim.spawn(run_hmx_gemm(r.npu, plan, "g"), "g");
        r.run();
      }
    }
    const Tick end = r.run();
    return std::tuple{end, r.npu.hmx_cycles(), r.npu.dma_bytes(), r.sim.events_fired()};
  };
  const auto [one_end, one_hmx, one_bytes, one_events] = run(16, true);
  const auto [seq_end, seq_hmx, seq_bytes, seq_events] = run(16, false);
  EXPECT_EQ(seq_end, 16 * Tick{89'220'000});
  EXPECT_NEAR(static_cast<double>(one_end), static_cast<double>(seq_end), 16.0 * 10);
  EXPECT_EQ(one_hmx, seq_hmx);
  EXPECT_EQ(one_bytes, seq_bytes);
  EXPECT_LT(4 * one_events, seq_events);
  Rig r;
  const auto plan = plan_hmx_gemm(r.npu.spec(), {32, 256, 256, DType::kFp16}, OperandHome::kDram);
  Progress done(r.sim);
  EXPECT_THROW(run_hmx_gemm(r.npu, plan, "g", &done, 2), std::invalid_argument);
}

// A row-blocked GEMM (its operands fill the TCM several times over): each row block restages its
// activations, so its first and last steps differ from the steady state and from each other, but
// they are DMA-bound like it and merge with it. The time is the block-by-block pipeline's; with no
// consumer of the outputs (no Progress) the run does not taper, and takes fewer steps still.
TEST(HmxGemm, StepsBoundAlikeMergeAcrossRowBlocks) {
  const NpuSpec spec = test::small_npu();
  const GemmShape shape{512, 256, 2048, DType::kFp16};
  const auto plan = plan_hmx_gemm(spec, shape, OperandHome::kDram);
  ASSERT_EQ(plan.strategy, GemmStrategy::kRowBlocked);
  std::size_t distinct = 1;
  for (std::size_t i = 1; i < plan.blocks.size(); ++i) {
    const auto& a = plan.blocks[i - 1];
    const auto& b = plan.blocks[i];
    distinct += a.stage_bytes != b.stage_bytes || a.stage_transfers != b.stage_transfers || a.hmx_cycles != b.hmx_cycles;
  }
  ASSERT_GE(distinct, 4u) << "the shape should change blocks at row-block edges";
  const auto run = [&](bool streamed) {
    Simulator sim;
    DramModel dram{sim, 10e9, {1.0}};
    HexagonNpu npu{sim, spec, dram, nullptr};
    Progress done(sim);
    sim.spawn(run_hmx_gemm(npu, plan, "g", streamed ? &done : nullptr), "g");
    EXPECT_EQ(sim.run(), RunResult::kIdle);
    if (streamed) {
      EXPECT_EQ(done.value(), plan.blocks.size());
    }
    sim.kill_processes();
    return std::pair{to_seconds(sim.now()), sim.events_fired()};
  };
  const double want = idle_plan_seconds(spec, plan);
  const auto [streamed_s, streamed_events] = run(true);
  const auto [alone_s, alone_events] = run(false);
  EXPECT_NEAR(streamed_s, want, 1e-6 * want);
  EXPECT_NEAR(alone_s, want, 1e-6 * want);
  EXPECT_LT(streamed_events, 2 * plan.blocks.size());
  EXPECT_LT(alone_events, streamed_events);
}

Tick gemm_time_with_tcm(std::uint64_t tcm, const GemmShape& shape) {
  NpuSpec spec = test::small_npu();
  spec.tcm_bytes = tcm;
  Simulator sim;
  DramModel dram{sim, 10e9, {1.0}};
  HexagonNpu npu{sim, spec, dram, nullptr};
  const GemmPlan plan = plan_hmx_gemm(spec, shape, OperandHome::kDram);  // the coroutine keeps a reference
  sim.spawn(run_hmx_gemm(npu, plan, "g"), "g");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  sim.kill_processes();
  return sim.now();
}

// The blocking is chosen for the fastest pipeline on an idle NPU, so more TCM (more candidate
// blockings) is never slower. Filling the TCM with one big block was: block 0 is staged before
// any compute, so a 16 MiB TCM ran llm.npu's prefill 2% slower than 8 MiB.
TEST(HmxGemm, MoreTcmIsNeverSlower) {
  for (const GemmShape shape : {GemmShape{32, 256, 1024, DType::kFp16}, GemmShape{64, 512, 2048, DType::kInt8},
                                GemmShape{128, 256, 4096, DType::kFp16}, GemmShape{96, 512, 512, DType::kInt8}}) {
    Tick previous = 0;
    for (std::uint64_t tcm : {64u << 10, 256u << 10, 1u << 20, 4u << 20}) {
      const Tick t = gemm_time_with_tcm(tcm, shape);
      if (previous != 0) {
        EXPECT_LE(t, previous) << shape.m << "x" << shape.k << "x" << shape.n << " at TCM " << tcm;
      }
      previous = t;
    }
  }
}

// With room for all 32 weight columns in one block, staging them all before the first product
// would leave HMX idle for the whole transfer; smaller blocks overlap staging with compute.
TEST(HmxGemm, BlocksSmallerThanTheTcmAllowsWhenThatOverlapsBetter) {
  NpuSpec spec = test::small_npu();
  spec.tcm_bytes = 4u << 20;
  const auto p = plan_hmx_gemm(spec, {32, 256, 1024, DType::kFp16}, OperandHome::kDram);
  EXPECT_EQ(p.strategy, GemmStrategy::kActivationsResident);
  EXPECT_GT(p.blocks.size(), 1u);  // the budget holds all 32 columns (one block)
  EXPECT_EQ(p.total.weight_loads, 8u * 32u);  // every weight tile still staged and loaded once
}

}  // namespace
}  // namespace socsim::hw
