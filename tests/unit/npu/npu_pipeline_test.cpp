// NPU kernels as software pipelines on hardware threads: the pipeline runner against hand counts,
// thread and context limits, and HVX/HMX overlap in the W4A16 and FlashAttention kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/attention/flash_lower.h"
#include "kernels/gemm/gemm_lower_npu.h"
#include "npu_test_spec.h"
#include "sim/hw/npu/hexagon_npu.h"
#include "sim/report/trace.h"
#include "sim/runtime/work_runner.h"

namespace socsim::hw {
namespace {

using kernels::NpuStage;
using kernels::NpuStep;
using kernels::NpuWork;

struct Rig {
  explicit Rig(NpuSpec spec = test::small_npu()) : npu{sim, spec, dram, &trace} {}
  Simulator sim;
  DramModel dram{sim, 10e9, {1.0}};
  report::TraceRecorder trace;
  HexagonNpu npu;
  ~Rig() { sim.kill_processes(); }
  Tick run(const NpuWork& w) {
    sim.spawn(runtime::run_npu_work(npu, w), "work");
    EXPECT_EQ(sim.run(), RunResult::kIdle);
    return sim.now();
  }
  // Time during which both tracks had a span (spans of one track do not overlap).
  Tick overlap(const std::string& a, const std::string& b) const {
    Tick both = 0;
    for (const auto& x : trace.spans()) {
      if (x.track != a) continue;
      for (const auto& y : trace.spans()) {
        if (y.track != b) continue;
        const Tick lo = std::max(x.start, y.start), hi = std::min(x.end, y.end);
        if (hi > lo) both += hi - lo;
      }
    }
    return both;
  }
};

// Time of one step alone on an idle NPU.
Tick alone(const NpuStep& step, NpuSpec spec = test::small_npu()) {
  Rig r(spec);
  NpuWork w;
  w.steps = {step};
  return r.run(w);
}

// HVX 1000 packets on 2 threads (500 ns) then HMX 320 cycles (320 ns), four iterations.
NpuWork hvx_then_hmx(std::uint32_t buffers) {
  NpuWork w;
  w.stages = {{"vector", buffers}, {"matrix", 0}};
  for (std::uint32_t i = 0; i < 4; ++i) {
    w.steps.push_back(NpuStep::hvx("v", 1000, 2).at(i, 0));
    w.steps.push_back(NpuStep::hmx_gemm("m", {32, 32, 32, DType::kFp16}, OperandHome::kTcm).at(i, 1));
  }
  return w;
}

TEST(NpuPipeline, DoubleBufferedStagesOverlapToTheSlowestStage) {
  // HMX 32x32x32 in TCM: 1 weight load 2 + 1 tile op 5 + 1 drain 8 = 15 cycles = 15 ns.
  ASSERT_EQ(alone(NpuStep::hmx_gemm("m", {32, 32, 32, DType::kFp16}, OperandHome::kTcm)), 15 * kNanosecond);
  // Two buffers: HVX runs back to back (4 x 500 ns), the last HMX after it: 2015 ns.
  Rig two;
  EXPECT_EQ(two.run(hvx_then_hmx(2)), 2015 * kNanosecond);
  EXPECT_EQ(two.overlap("npu.hvx", "npu.hmx"), 3 * 15 * kNanosecond);  // HMX i under HVX i+1
  // One buffer: HVX i + 1 waits for HMX i to consume its output: 4 x (500 + 15) ns.
  Rig one;
  EXPECT_EQ(one.run(hvx_then_hmx(1)), 4 * 515 * kNanosecond);
  EXPECT_EQ(one.overlap("npu.hvx", "npu.hmx"), 0);
  // Without stages the steps run in order: the same as one buffer here.
  NpuWork seq = hvx_then_hmx(1);
  seq.stages.clear();
  Rig in_order;
  EXPECT_EQ(in_order.run(seq), 4 * 515 * kNanosecond);
}

TEST(NpuPipeline, ThreeStagesWithDmaBoundByTheDma) {
  // DMA 2000 B in one transfer: 100 ns + 1000 ns = 1100 ns per iteration, the slowest stage:
  // 4 x 1100 + HVX 500 + HMX 15 = 4915 ns.
  NpuWork w;
  w.stages = {{"load", 2}, {"vector", 2}, {"matrix", 0}};
  for (std::uint32_t i = 0; i < 4; ++i) {
    w.steps.push_back(NpuStep::dma("d", 2000, 1).at(i, 0));
    w.steps.push_back(NpuStep::hvx("v", 1000, 2).at(i, 1));
    w.steps.push_back(NpuStep::hmx_gemm("m", {32, 32, 32, DType::kFp16}, OperandHome::kTcm).at(i, 2));
  }
  Rig r;
  EXPECT_EQ(r.run(w), 4915 * kNanosecond);
}

TEST(NpuPipeline, StagesShareTheHardwareThreads) {
  // HVX on 2 threads and HMX on a third overlap with 4 scalar threads; with 2, HMX waits for a
  // thread the HVX stage holds and the pipeline runs as if single-buffered.
  NpuSpec two_threads = test::small_npu();
  two_threads.scalar_threads = 2;
  Rig r(two_threads);
  EXPECT_EQ(r.run(hvx_then_hmx(2)), 4 * 515 * kNanosecond);
  EXPECT_EQ(r.overlap("npu.hvx", "npu.hmx"), 0);
  // One thread: HVX work asking for 2 runs on the 1 there is (1000 ns per block).
  NpuSpec one_thread = test::small_npu();
  one_thread.scalar_threads = 1;
  Rig s(one_thread);
  EXPECT_EQ(s.run(hvx_then_hmx(2)), 4 * 1015 * kNanosecond);
}

TEST(NpuPipeline, WorkWaitingForAnEngineHoldsNoHardwareThread) {
  // small_npu: 4 threads, 2 HVX contexts. HVX work A (1000 packets on 2 contexts: 500 ns) runs;
  // B, the same, waits for the contexts; HMX work C needs one thread. B's software threads are
  // blocked in the OS until the contexts free, holding no hardware thread, so C starts at once
  // (a B holding 2 threads in front of C would have kept it waiting until A ended).
  Rig r;
  const auto one = [](NpuStep step) {
    NpuWork w;
    w.steps = {std::move(step)};
    return w;
  };
  // run_npu_work holds its work by reference: the works outlive the run.
  const NpuWork a = one(NpuStep::hvx("a", 1000, 2)), b = one(NpuStep::hvx("b", 1000, 2));
  const NpuWork c = one(NpuStep::hmx_gemm("c", {32, 32, 32, DType::kFp16}, OperandHome::kTcm));
  r.sim.spawn(runtime::run_npu_work(r.npu, a), "a");
  r.sim.spawn(runtime::run_npu_work(r.npu, b), "b");
  r.sim.spawn(runtime::run_npu_work(r.npu, c), "c");
  ASSERT_EQ(r.sim.run(), RunResult::kIdle);
  EXPECT_EQ(r.sim.now(), 1000 * kNanosecond);  // A then B on the contexts
  for (const auto& span : r.trace.spans()) {
    if (span.track == "npu.hmx") {
      EXPECT_EQ(span.start, 0);
      EXPECT_EQ(span.end, 15 * kNanosecond);
    }
  }
  EXPECT_EQ(r.overlap("npu.hvx", "npu.hmx"), 15 * kNanosecond);
}

TEST(NpuPipeline, MoreTcmNeverSlowsTheW4A16Kernel) {
  // TTS's kernel (double-buffered, coalesced super-groups) on a decode GEMV and a prefill GEMM:
  // a bigger TCM allows bigger chunks, and the kernel takes them only when its pipeline is
  // estimated faster, so the simulated time never grows with the TCM; at 64 MiB the GEMV still
  // runs as several chunks (one chunk would leave nothing to overlap).
  const kernels::W4A16NpuOptions tts{kernels::DequantLayout::kCoalesced, true, {}};
  for (const kernels::GemmDims d : {kernels::GemmDims{1, 896, 4864}, kernels::GemmDims{64, 1024, 2048}}) {
    Tick previous = 0;
    for (const std::uint64_t tcm : {256ULL << 10, 1ULL << 20, 4ULL << 20, 16ULL << 20, 64ULL << 20}) {
      NpuSpec spec = test::small_npu();
      spec.tcm_bytes = tcm;
      spec.hvx.contexts = 4;
      spec.scalar_threads = 6;
      const NpuWork w = kernels::lower_gemm_w4a16_npu(d, kernels::BlockFormat::kQ4_0, spec, tts);
      Rig r(spec);
      const Tick t = r.run(w);
      if (previous > 0) {
        EXPECT_LE(t, previous) << d.m << "x" << d.k << "x" << d.n << " at " << tcm << " B of TCM";
      }
      previous = t;
      if (tcm == (64ULL << 20) && d.m == 1) {
        EXPECT_GT(w.steps.back().iteration, 2u);
      }
    }
  }
}

TEST(NpuPipeline, WorkAskingForMoreThreadsThanContextsRunsOnTheContexts) {
  // small_npu: 2 HVX contexts. 8 software threads share them: 1000 packets / 2 = 500 ns.
  EXPECT_EQ(alone(NpuStep::hvx("v", 1000, 8)), 500 * kNanosecond);
  Rig r;
  EXPECT_THROW(r.npu.hvx_threads(0), std::invalid_argument);
  EXPECT_EQ(r.npu.hvx_threads(3), 2u);
}

TEST(NpuPipeline, TraceHasATrackPerHardwareThread) {
  // Threads 0-1 issue the HVX stage, thread 2 the HMX stage beside them.
  Rig r;
  r.run(hvx_then_hmx(2));
  std::vector<std::string> tracks;
  for (const auto& s : r.trace.spans()) {
    if (s.track.rfind("npu.thread", 0) == 0 && std::find(tracks.begin(), tracks.end(), s.track) == tracks.end()) tracks.push_back(s.track);
  }
  std::sort(tracks.begin(), tracks.end());
  EXPECT_EQ(tracks, (std::vector<std::string>{"npu.thread0", "npu.thread1", "npu.thread2"}));
  EXPECT_EQ(r.overlap("npu.thread0", "npu.thread2"), 3 * 15 * kNanosecond);
}

TEST(NpuPipeline, W4A16OverlapsDequantizationWithHmxAsHandCounted) {
  // 1x2048x4096 Q4_0 with the baseline dequantization (HVX-bound: 200 packets per 256 weights),
  // operands already tiled: 64 chunks of 64 columns. When HVX is the slowest stage, the pipeline
  // takes the first chunk's loads, every chunk's dequantization back to back, then the last
  // chunk's HMX and output DMA; every other DMA and HMX hides under HVX.
  NpuSpec spec = test::small_npu();
  spec.tcm_bytes = 1 << 20;  // 64 columns per chunk, as in gemm_lower_npu_test
  kernels::W4A16NpuOptions o{kernels::DequantLayout::kBaseline, true, {true, true}};
  const NpuWork w = kernels::lower_gemm_w4a16_npu({1, 2048, 4096}, kernels::BlockFormat::kQ4_0, spec, o);
  Tick expected = 0, hmx_hidden = 0;
  std::uint32_t last = 0;
  for (const auto& st : w.steps) last = std::max(last, st.iteration);
  for (const auto& st : w.steps) {
    const Tick t = alone(st, spec);
    if (st.stage == 1 || (st.iteration == 0 && st.stage == 0) || (st.iteration == last && st.stage >= 2)) expected += t;
    if (st.stage == 2 && st.iteration != last) hmx_hidden += t;
  }
  Rig r(spec);
  EXPECT_EQ(r.run(w), expected);
  EXPECT_EQ(r.overlap("npu.hvx", "npu.hmx"), hmx_hidden);
  // Single-buffered, the same work takes longer and HMX never runs beside HVX.
  o.prefetch_weights = false;
  Rig single(spec);
  EXPECT_GT(single.run(kernels::lower_gemm_w4a16_npu({1, 2048, 4096}, kernels::BlockFormat::kQ4_0, spec, o)), expected);
  EXPECT_EQ(single.overlap("npu.hvx", "npu.hmx"), 0);
}

TEST(NpuPipeline, FlashAttentionComputesScoresWhileHvxExponentiatesAsHandCounted) {
  // V75-like NPU, 256 KiB TCM: chunks of 3 key tiles. 2 heads, 32 queries over 320 keys (5 tiles:
  // chunks of 3 and 2), operands in TCM: 4 iterations. The softmax (HVX) is the slowest stage,
  // so the kernel takes the first Q K^T, every softmax back to back and the last P V; the other
  // HMX GEMMs run beside HVX.
  NpuSpec spec = test::small_npu();
  spec.tcm_bytes = 256 * 1024;
  spec.hvx.contexts = 4;
  spec.scalar_threads = 6;
  const kernels::FlashParams p{64, 32, kernels::ExpVariant::kLut};
  const NpuWork w = kernels::lower_flash_attention_npu(spec, {2, 2, 64, 32, 288, 320}, p, 4, OperandHome::kTcm);
  ASSERT_EQ(w.steps.size(), 12u);
  Tick expected = 0, hmx_total = 0, first_and_last = 0;
  for (std::size_t k = 0; k < w.steps.size(); ++k) {
    const auto& st = w.steps[k];
    const Tick t = alone(st, spec);
    if (st.stage == 2) expected += t;
    if (st.kind == NpuStep::Kind::kHmxGemm) hmx_total += t;
    if (k == 0 || k + 1 == w.steps.size()) first_and_last += t;
  }
  expected += first_and_last;
  Rig r(spec);
  EXPECT_EQ(r.run(w), expected);
  EXPECT_EQ(r.overlap("npu.hvx", "npu.hmx"), hmx_total - first_and_last);
}

}  // namespace
}  // namespace socsim::hw
