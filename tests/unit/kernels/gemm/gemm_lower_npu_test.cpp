#include "kernels/gemm/gemm_lower_npu.h"

#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "kernels/gemm/hvx_costs.h"
#include "sim/hw/npu/gemm_plan.h"

namespace socsim::kernels {
namespace {

using Kind = NpuStep::Kind;

void expect_gemm(const NpuStep& s, std::uint64_t m, std::uint64_t k, std::uint64_t n, hw::DType d, hw::OperandHome h) {
  ASSERT_EQ(s.kind, Kind::kHmxGemm) << s.name;
  EXPECT_EQ(s.gemm.m, m);
  EXPECT_EQ(s.gemm.k, k);
  EXPECT_EQ(s.gemm.n, n);
  EXPECT_EQ(s.gemm.dtype, d);
  EXPECT_EQ(s.home, h);
}

void expect_hvx(const NpuStep& s, double packets, std::uint32_t threads) {
  ASSERT_EQ(s.kind, Kind::kHvx) << s.name;
  EXPECT_DOUBLE_EQ(s.packets, packets) << s.name;
  EXPECT_EQ(s.threads, threads);
}

void expect_dma(const NpuStep& s, std::uint64_t bytes, std::uint64_t transfers) {
  ASSERT_EQ(s.kind, Kind::kDma) << s.name;
  EXPECT_EQ(s.bytes, bytes) << s.name;
  EXPECT_EQ(s.transfers, transfers) << s.name;
}

TEST(GemmLowerNpu, Int8IsAOneNodeGraphAndAnHmxGemm) {
  const NpuWork w = lower_gemm_i8_npu({64, 2048, 2048});
  ASSERT_EQ(w.steps.size(), 2u);
  EXPECT_EQ(w.steps[0].kind, Kind::kGraphCall);
  EXPECT_EQ(w.steps[0].graph_ops, 1u);
  expect_gemm(w.steps[1], 64, 2048, 2048, hw::DType::kInt8, hw::OperandHome::kDram);
  const NpuWork t = lower_gemm_i8_npu({33, 65, 17}, hw::OperandHome::kTcm);
  ASSERT_EQ(t.steps.size(), 2u);
  expect_gemm(t.steps[1], 33, 65, 17, hw::DType::kInt8, hw::OperandHome::kTcm);
}

TEST(GemmLowerNpu, PerGroupIsOneSubGemmAndOneReductionPerGroup) {
  const auto spec = test::small_npu();  // 128-B vectors (32 INT32), 4 contexts, qfloat
  // k 2048 / G 128 = 16 groups: 4*16 - 1 = 63 nodes; 1 + 2*16 = 33 steps.
  const NpuWork w = lower_gemm_i8_per_group_npu({64, 2048, 2048}, 128, spec);
  ASSERT_EQ(w.steps.size(), 33u);
  EXPECT_EQ(w.steps[0].graph_ops, 63u);
  // 64*2048 / 32 = 4096 vectors: group 0 (convert, scale, qfloat) 3 each = 12,288; later 4 = 16,384.
  expect_gemm(w.steps[1], 64, 128, 2048, hw::DType::kInt8, hw::OperandHome::kDram);
  expect_hvx(w.steps[2], 12'288, 4);
  expect_gemm(w.steps[31], 64, 128, 2048, hw::DType::kInt8, hw::OperandHome::kDram);
  expect_hvx(w.steps[32], 16'384, 4);
  // k 100, G 32: groups of 32, 32, 32, 4; 15 nodes; 3*10 = 30 outputs = 1 vector; no qfloat: 2, 3, 3, 3.
  const NpuWork o = lower_gemm_i8_per_group_npu({3, 100, 10}, 32, test::small_npu(false), hw::OperandHome::kTcm);
  ASSERT_EQ(o.steps.size(), 9u);
  EXPECT_EQ(o.steps[0].graph_ops, 15u);
  expect_hvx(o.steps[2], 2, 4);
  expect_gemm(o.steps[7], 3, 4, 10, hw::DType::kInt8, hw::OperandHome::kTcm);
  expect_hvx(o.steps[8], 3, 4);
}

TEST(GemmLowerNpu, Fp16HmxShufflesRowMajorOperands) {
  const auto spec = test::small_npu();
  // 64x2048x2048: mt 2, kt 64, nt 64; 16 packets per tile: 2*64*16 = 2048 each way.
  const NpuWork w = lower_gemm_f16_hmx_npu({64, 2048, 2048}, spec);
  ASSERT_EQ(w.steps.size(), 3u);
  expect_hvx(w.steps[0], 2048, 4);
  expect_gemm(w.steps[1], 64, 2048, 2048, hw::DType::kFp16, hw::OperandHome::kDram);
  expect_hvx(w.steps[2], 2048, 4);
  // 33x65x17 with tiled activations: mt 2, nt 1 -> untile 2*1*16 = 32.
  const NpuWork t = lower_gemm_f16_hmx_npu({33, 65, 17}, spec, {true, false}, hw::OperandHome::kTcm);
  ASSERT_EQ(t.steps.size(), 2u);
  expect_gemm(t.steps[0], 33, 65, 17, hw::DType::kFp16, hw::OperandHome::kTcm);
  expect_hvx(t.steps[1], 32, 4);
}

TEST(GemmLowerNpu, W4A16VendorGraphWidensEachStagedWeightTile) {
  auto spec = test::small_npu();
  spec.dma = {2e9, 100 * kNanosecond, 1};  // the plan weighs block sizes by their DMA time
  const GemmDims d{64, 2048, 2048};
  const NpuWork w = lower_gemm_w4a16_graph_npu(d, spec);
  ASSERT_EQ(w.steps.size(), 4u);
  EXPECT_EQ(w.steps[0].kind, Kind::kGraphCall);
  EXPECT_EQ(w.steps[0].graph_ops, 1u);
  // Every weight tile the plan loads into the array is widened once: tile_rows x depth codes,
  // 2 x vector_bytes codes per vand/vlsr pair and two vlut16s.
  const auto plan = hw::plan_hmx_gemm(spec, {64, 2048, 2048, hw::DType::kFp16}, hw::OperandHome::kDram);
  const double units = static_cast<double>(plan.total.weight_loads) * spec.hmx.tile_rows * spec.hmx.fp16_tile_depth /
                       (2.0 * spec.hvx.vector_bytes);
  expect_hvx(w.steps[1], units * (2 + 2 * spec.hvx.vlut16_packets), spec.hvx.contexts);
  expect_gemm(w.steps[2], 64, 2048, 2048, hw::DType::kFp16, hw::OperandHome::kDram);
  // Per-channel scales on the 64 x 2048 FP16 outputs: one vmpy (+ qfloat conversion) per vector.
  expect_hvx(w.steps[3], 64.0 * 2048 / (spec.hvx.vector_bytes / 2) * (spec.hvx.qfloat ? 2 : 1), spec.hvx.contexts);
}

// Weights resident in TCM (staged once) and activation row blocks streamed past them: each weight
// tile is loaded into HMX once per row block but widened once.
TEST(GemmLowerNpu, W4A16VendorGraphWidensResidentWeightsOnce) {
  auto spec = test::small_npu();  // 32 x 32 FP16 tiles of 2 KiB
  spec.tcm_bytes = 64 * 1024;
  // 256x128x64: W = 4 x 2 tiles = 16 KiB (resident), A = 8 x 4 tiles = 64 KiB (not), rows of
  // 4 + 2 tiles = 12 KiB double-buffered in (64 - 16) / 2 KiB: 2 row tiles a block, 4 blocks.
  const auto plan = hw::plan_hmx_gemm(spec, {256, 128, 64, hw::DType::kFp16, 0, 0, kW4a16GraphWeightBits}, hw::OperandHome::kDram);
  ASSERT_EQ(plan.strategy, hw::GemmStrategy::kWeightsResident);
  ASSERT_EQ(plan.blocks.size(), 4u);
  EXPECT_EQ(plan.total.weight_loads, 32u);
  const NpuWork w = lower_gemm_w4a16_graph_npu({256, 128, 64}, spec);
  const double units = 8.0 * spec.hmx.tile_rows * spec.hmx.fp16_tile_depth / (2.0 * spec.hvx.vector_bytes);
  expect_hvx(w.steps[1], units * (2 + 2 * spec.hvx.vlut16_packets), spec.hvx.contexts);
}

TEST(GemmLowerNpu, W4A16StreamsQuantizedWeightsThroughTcm) {
  const auto spec = test::small_npu();  // TCM 1 MiB: working set 512 KiB
  // 1x2048x4096 Q4_0, tile groups: mt 1, kt 64, nt 128. Row block: 256 KiB / (64 x 2 KiB) = 2 -> 1.
  // Column chunk: at most (512 KiB - 128 KiB) / (128 KiB + 32 x 64 x 18 = 36,864 + 2 KiB) = 2.31
  // -> 2 tile columns. Double-buffered, the chooser estimates (DMA 2 GB/s and 100 ns a transfer;
  // the one DMA engine is the busiest; HVX on all 4 threads, 4 packets/ns: leaving HMX a thread
  // of its own, 3 workers, only lengthens the fill here):
  //   1 tile:  fill 20.68 (weights 18.532 + activations 2.148) + 1.408 HVX + 0.136 store = 22.224
  //            us, then 127 periods of 18.532 + 0.132 (outputs) = 18.664 us: 2392.55 us + HMX
  //   2 tiles: fill 39.212 + 2.56 + 0.172 = 41.944 us, then 63 periods of 37.064 + 0.164 = 37.228
  //            us: 2387.31 us + HMX (one output transfer per two tiles)
  // -> 2 tiles, 64 chunks of 64 weight columns.
  const NpuWork w = lower_gemm_w4a16_npu({1, 2048, 4096}, BlockFormat::kQ4_0, spec, {DequantLayout::kCoalesced, true, {}});
  ASSERT_EQ(w.steps.size(), 2u + 64 * 5);
  expect_dma(w.steps[0], 1 * 2048 * 2, 1);
  expect_dma(w.steps[1], 64 * 64 * 18, 2);  // 64 columns x 64 blocks x 18 B, one transfer per strip
  expect_hvx(w.steps[2], 1 * 64 * 16, 4);
  // 2 x 64 tiles x 1024 weights / 256 = 512 units x (2 + 2*2 + 2*2 + 4 + 4 qfloat = 18) = 9216.
  expect_hvx(w.steps[3], 9216, 4);
  expect_gemm(w.steps[4], 1, 2048, 64, hw::DType::kFp16, hw::OperandHome::kTcm);
  expect_hvx(w.steps[5], 2 * 16, 4);
  expect_dma(w.steps[6], 64 * 2, 1);
  double dequant = 0;
  for (const auto& s : w.steps) {
    if (s.name == "w4a16 dequantize") dequant += s.packets;
  }
  EXPECT_DOUBLE_EQ(dequant, 2048.0 * 4096 / 256 * 18);  // every weight once
  for (const auto& s : w.steps) {
    if (s.kind == Kind::kHmxGemm) {
      EXPECT_NO_THROW(hw::plan_hmx_gemm(spec, s.gemm, s.home));
    }
  }

  // 33x65x17 Q8_0, conventional groups scattered (baseline), operands already tiled: mt 2, kt 3,
  // nt 1: one chunk. Dequantize 3 tiles x 1024 / 256 = 12 units x 8 groups x (valign 1 +
  // unpack/convert 2 + splat 1 + vmpy 1 + qfloat 1 = 6, + scatter 16 line stores = 22) = 2112.
  const NpuWork o = lower_gemm_w4a16_npu({33, 65, 17}, BlockFormat::kQ8_0, spec, {DequantLayout::kBaseline, false, {true, true}});
  ASSERT_EQ(o.steps.size(), 5u);
  expect_dma(o.steps[0], 33 * 65 * 2, 1);
  expect_dma(o.steps[1], 17 * 3 * 34, 1);
  expect_hvx(o.steps[2], 2112, 4);
  expect_gemm(o.steps[3], 33, 65, 17, hw::DType::kFp16, hw::OperandHome::kTcm);
  expect_dma(o.steps[4], 33 * 17 * 2, 1);
}

TEST(GemmLowerNpu, W4A16BuffersAsDeepAsTheWorkingSetHolds) {
  // small_npu (1 MiB TCM, 512 KiB working set). 1x256x512: kt 8, nt 16; activations 8 x 2 KiB,
  // all 16 output tiles 32 KiB, a whole row's weights 16 x (16 KiB + 32 x 8 x 18 B): everything
  // fits, so the multiply stage has no output buffers to wait for.
  const auto spec = test::small_npu();
  const kernels::W4A16NpuOptions tts{DequantLayout::kCoalesced, true, {}};
  const NpuWork small = lower_gemm_w4a16_npu({1, 256, 512}, BlockFormat::kQ4_0, spec, tts);
  ASSERT_EQ(small.stages.size(), 4u);
  EXPECT_EQ(small.stages[0].buffers, 3u);
  EXPECT_EQ(small.stages[1].buffers, 2u);
  EXPECT_EQ(small.stages[2].buffers, 0u);
  // 1x2048x4096 (chunks of 2 tile columns, above): activations 128 KiB + 2 x (128 KiB FP16 +
  // 36,864 B quantized) = 466,944 B; a third quantized buffer (73,728 B) does not fit the 524,288;
  // the 57,344 B left hold 14 chunks' outputs of 4 KiB, fewer than the 64 chunks.
  const NpuWork big = lower_gemm_w4a16_npu({1, 2048, 4096}, BlockFormat::kQ4_0, spec, tts);
  EXPECT_EQ(big.stages[0].buffers, 2u);
  EXPECT_EQ(big.stages[2].buffers, 14u);
  // Single-buffered: one buffer each.
  const NpuWork one = lower_gemm_w4a16_npu({1, 256, 512}, BlockFormat::kQ4_0, spec);
  for (std::size_t s = 0; s < 3; ++s) EXPECT_EQ(one.stages[s].buffers, 1u);
}

TEST(GemmLowerNpu, W4A16LeavesHmxAHardwareThreadWhenThatIsFaster) {
  // small_npu: 4 hardware threads, 4 HVX contexts, one HMX; DMA made fast (60 GB/s) so that the
  // engines, not the weight stream, bound the GEMM. HVX on all four leaves HMX no thread: they
  // take turns. A 128-row GEMM keeps HMX busy, so the double-buffered kernel runs its vector
  // stages on three threads beside HMX; single-buffered, stages hardly overlap: all four.
  auto spec = test::small_npu();
  spec.dma.bandwidth = spec.port_bandwidth = 60e9;
  const auto threads_of = [](const NpuWork& w) {
    for (const auto& st : w.steps) {
      if (st.name == "w4a16 dequantize") return st.threads;
    }
    return 0u;
  };
  EXPECT_EQ(threads_of(lower_gemm_w4a16_npu({128, 1024, 1024}, BlockFormat::kQ4_0, spec, {DequantLayout::kCoalesced, true, {}})), 3u);
  EXPECT_EQ(threads_of(lower_gemm_w4a16_npu({128, 1024, 1024}, BlockFormat::kQ4_0, spec)), 4u);
}

TEST(GemmLowerNpu, W4A16IsAPipelineOfLoadDequantizeMultiplyStore) {
  // 1x2048x4096 as above (64 chunks of 64 columns): one iteration per chunk; the row block's
  // activations ride in the first iteration's load and dequantize stages. Double buffering
  // (prefetch) changes the buffers of the first three stages (two or more) and, with them, the chunk the
  // kernel estimates fastest (single-buffered, the load and dequantization of a chunk cannot
  // overlap: 1 tile, 128 chunks), never the work.
  const auto spec = test::small_npu();
  const NpuWork plain = lower_gemm_w4a16_npu({1, 2048, 4096}, BlockFormat::kQ4_0, spec);
  const NpuWork pre = lower_gemm_w4a16_npu({1, 2048, 4096}, BlockFormat::kQ4_0, spec, {DequantLayout::kCoalesced, true, {}});
  ASSERT_EQ(pre.stages.size(), 4u);
  EXPECT_EQ(pre.stages[0].name, "load");
  EXPECT_EQ(pre.stages[1].name, "dequantize");
  EXPECT_EQ(pre.stages[2].name, "multiply");
  EXPECT_EQ(pre.stages[3].name, "store");
  EXPECT_EQ(pre.stages[0].buffers, 2u);  // no room for a third (W4A16BuffersAsDeepAsTheWorkingSetHolds)
  EXPECT_EQ(pre.stages[1].buffers, 2u);
  EXPECT_EQ(pre.stages[2].buffers, 14u);
  for (std::size_t s = 0; s < 3; ++s) EXPECT_EQ(plain.stages[s].buffers, 1u);
  EXPECT_EQ(pre.stages[3].buffers, 0u);
  EXPECT_EQ(plain.steps.size(), 2u + 128 * 5);
  const auto totals = [](const NpuWork& w, const std::string& name) {
    std::pair<std::uint64_t, double> t{0, 0.0};
    for (const auto& st : w.steps) {
      if (st.name == name) t.first += st.bytes, t.second += st.packets;
    }
    return t;
  };
  for (const std::string name : {"w4a16 activations in", "w4a16 weights in", "w4a16 dequantize", "w4a16 outputs out"}) {
    EXPECT_EQ(totals(pre, name).first, totals(plain, name).first) << name;
    EXPECT_DOUBLE_EQ(totals(pre, name).second, totals(plain, name).second) << name;
  }
  // Engines by stage: DMA loads, HVX dequantizes, HMX multiplies; iterations in order.
  std::uint32_t last_iteration = 0;
  for (const auto& st : pre.steps) {
    EXPECT_GE(st.iteration, last_iteration);
    last_iteration = st.iteration;
    switch (st.stage) {
      case 0: EXPECT_EQ(st.kind, Kind::kDma) << st.name; break;
      case 1: EXPECT_EQ(st.kind, Kind::kHvx) << st.name; break;
      case 2: EXPECT_EQ(st.kind, Kind::kHmxGemm) << st.name; break;
      default: EXPECT_NE(st.kind, Kind::kHmxGemm) << st.name; break;
    }
  }
  EXPECT_EQ(last_iteration, 63u);
}

TEST(GemmLowerNpu, W4A16DequantLayoutsPerUnit) {
  // Per unit of 256 weights (8 groups) on v75-like HVX (vlut16 2 packets, qfloat):
  //   Q4_0 per group: valign 1 + and/shift/shuffle 3 + vlut16 2 + splat 1 + vmpy 1 + qfloat 1 = 9.
  const auto h = test::small_npu().hvx;
  EXPECT_DOUBLE_EQ(hvx::dequant_packets_per_unit(h, BlockFormat::kQ4_0, DequantLayout::kHmxLayout), 8 * 9);
  EXPECT_DOUBLE_EQ(hvx::dequant_packets_per_unit(h, BlockFormat::kQ4_0, DequantLayout::kBaseline), 8 * (9 + 16));
  EXPECT_DOUBLE_EQ(hvx::dequant_packets_per_unit(h, BlockFormat::kQ4_0, DequantLayout::kCoalesced), 18);
  EXPECT_DOUBLE_EQ(hvx::dequant_packets_per_unit(h, BlockFormat::kQ4_0, DequantLayout::kNone), 144.0 / 128);
  EXPECT_DOUBLE_EQ(hvx::dequant_packets_per_unit(h, BlockFormat::kQ8_0, DequantLayout::kCoalesced), 18);
  EXPECT_DOUBLE_EQ(hvx::dequant_packets_per_unit(h, BlockFormat::kQ8_0, DequantLayout::kNone), 272.0 / 128);
  // The GEMM orders the variants as the paper's ablation: none < coalesced < hmx-layout < baseline.
  const auto spec = test::small_npu();
  auto hvx_total = [&](DequantLayout l) {
    double t = 0;
    for (const auto& s : lower_gemm_w4a16_npu({1, 2048, 2048}, BlockFormat::kQ4_0, spec, {l, false, {}}).steps) {
      if (s.name == "w4a16 dequantize") t += s.packets;
    }
    return t;
  };
  EXPECT_LT(hvx_total(DequantLayout::kNone), hvx_total(DequantLayout::kCoalesced));
  EXPECT_LT(hvx_total(DequantLayout::kCoalesced), hvx_total(DequantLayout::kHmxLayout));
  EXPECT_LT(hvx_total(DequantLayout::kHmxLayout), hvx_total(DequantLayout::kBaseline));
}

}  // namespace
}  // namespace socsim::kernels
