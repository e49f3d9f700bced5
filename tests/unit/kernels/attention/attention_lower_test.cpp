// Attention `lower` against hand counts, two shapes per unit (arithmetic in the comments; the
// rules are in attention_lower.h, int8_attention.h, flash_lower.h and op_costs.h).
#include <gtest/gtest.h>

#include "kernels/attention/attention_lower.h"
#include "kernels/attention/flash_lower.h"
#include "kernels/attention/int8_attention.h"
#include "sim/core/host_memory.h"
#include "tests/unit/kernels/elementwise/kernel_test_specs.h"

namespace socsim::kernels {
namespace {

using Kind = NpuStep::Kind;

// heads, kv_heads, d, m, p0, n
const AttentionShape kQwenChunk{14, 2, 64, 5, 60, 65};  // VT = 5*60 + 15 = 315, rectangle 5*65 = 325
const AttentionShape kPhiFirst{4, 4, 80, 1, 0, 1};      // VT = 1

TEST(AttentionLower, FullCpuGpu) {
  // qk over the whole rectangle (the mat-mul computes the masked scores too): 14 * 2*64*325 =
  // 582400 flops; bytes Q 14*5*64*4 = 17920 + K read once per query head from the FP16 cache,
  // 14*65*64*2 = 116480. softmax over the visible scores only: 14 * (315*20 + 5) = 88270.
  // pv: 582400, V + O = 134400.
  auto c = lower_attention_cpu(kQwenChunk, 2);
  ASSERT_EQ(c.tasks.size(), 3u);
  EXPECT_DOUBLE_EQ(c.tasks[0].ops, 582400);
  EXPECT_EQ(c.tasks[0].dram_bytes, 134400u);
  EXPECT_EQ(c.tasks[0].rows, 5u);
  EXPECT_DOUBLE_EQ(c.tasks[1].ops, 88270);
  EXPECT_EQ(c.tasks[1].dram_bytes, 0u);
  EXPECT_DOUBLE_EQ(c.tasks[2].ops, 582400);
  EXPECT_EQ(c.tasks[2].dram_bytes, 134400u);
  auto g = lower_attention_gpu(kQwenChunk);
  EXPECT_EQ(g.kernels.at(0).rows, 70u);  // 14 heads x 5 rows in one launch
  EXPECT_EQ(g.kernels.at(1).rows, 0u);
  EXPECT_EQ(g.kernels[0].dtype, hw::DType::kFp32);
  EXPECT_FALSE(g.kernels[0].streaming);  // tiled GEMM
  // kv length 1: qk 4*2*80 = 640; bytes Q 1280 + K (FP16) 640; softmax 4*(20 + 1) = 84.
  c = lower_attention_cpu(kPhiFirst, 1);
  EXPECT_DOUBLE_EQ(c.tasks[0].ops, 640);
  EXPECT_EQ(c.tasks[0].dram_bytes, 1920u);
  EXPECT_DOUBLE_EQ(c.tasks[1].ops, 84);
  EXPECT_DOUBLE_EQ(lower_attention_gpu(kPhiFirst).kernels.at(2).flops, 640);
}

TEST(AttentionLower, CpuGemmsInFp16KeepTheSoftmaxInFp32) {
  const auto f16 = lower_attention_cpu(kQwenChunk, 2, hw::DType::kFp16), f32 = lower_attention_cpu(kQwenChunk, 2);
  ASSERT_EQ(f16.tasks.size(), 3u);
  EXPECT_EQ(f16.tasks[0].dtype, hw::DType::kFp16);
  EXPECT_EQ(f16.tasks[1].dtype, hw::DType::kFp32);
  EXPECT_EQ(f16.tasks[2].dtype, hw::DType::kFp16);
  for (std::size_t i = 0; i < 3; ++i) {  // same work, only the arithmetic differs
    EXPECT_DOUBLE_EQ(f16.tasks[i].ops, f32.tasks[i].ops);
    EXPECT_EQ(f16.tasks[i].dram_bytes, f32.tasks[i].dram_bytes);
  }
  EXPECT_THROW(lower_attention_cpu(kQwenChunk, 2, hw::DType::kInt8), std::invalid_argument);
}

TEST(AttentionLower, SparseCpuGpu) {
  // ratio 0.2 over visible 61..65: ceil = 13 each -> 65 per head, 910 in total.
  EXPECT_EQ(sparse_kept_total(kQwenChunk, 0.2), 910u);
  // ops 910 * (4*64 + 20) + 14*5 = 251230; bytes Q+O 35840 + min(910, 910) rows * 64 * 8 = 465920.
  auto c = lower_sparse_attention_cpu(kQwenChunk, 910, 1);
  ASSERT_EQ(c.tasks.size(), 1u);
  EXPECT_DOUBLE_EQ(c.tasks[0].ops, 251230);
  EXPECT_EQ(c.tasks[0].dram_bytes, 501760u);
  // 2 heads over 3 keys, d 16, 4 kept: 4*(64 + 20) + 6 = 342; 2*3*16*8 + 4*16*8 = 1280 B.
  const AttentionShape small{2, 1, 16, 3, 0, 3};
  auto g = lower_sparse_attention_gpu(small, 4);
  EXPECT_DOUBLE_EQ(g.kernels.at(0).flops, 342);
  EXPECT_EQ(g.kernels[0].dram_bytes, 1280u);
  EXPECT_TRUE(g.kernels[0].streaming);  // a gather, memory-bound
}

TEST(AttentionLower, BlockSparseCpuGpu) {
  // 2 heads, d 32, m 130 at p0 70 (200 keys), B 64, keep 2: QB 3, KB 4. Query blocks:
  //   a0 rows 64, candidates 3; a1 rows 64, candidates 4; a2 rows 2, candidates 4; k = 2 each.
  const AttentionShape s{2, 1, 32, 130, 70, 200};
  auto c = lower_block_sparse_attention_cpu(s, {64, 2, 0.0}, 1);
  ASSERT_EQ(c.tasks.size(), 4u);
  EXPECT_DOUBLE_EQ(c.tasks[0].ops, 21568);     // 2 * ((130 + 200)*32 + (3 + 4)*32)
  EXPECT_EQ(c.tasks[0].dram_bytes, 84480u);    // 2 * 330 * 32 * 4
  EXPECT_DOUBLE_EQ(c.tasks[1].ops, 1536);      // 2 * 2*32 * 3*4
  EXPECT_DOUBLE_EQ(c.tasks[2].ops, 22);        // 2 * (3*1 + 4*1 + 4*1)
  // scores per head 64*2*64 + 64*2*64 + 2*2*64 = 16640: 2 * (16640 * (128 + 20) + 130).
  EXPECT_DOUBLE_EQ(c.tasks[3].ops, 4925700);
  EXPECT_EQ(c.tasks[3].dram_bytes, 263168u);   // 2 * (130*32*8 + 6 blocks * 64 * 32 * 8)
  // kv length 1, ratio 0.2: one block kept, 64 padded scores: 64 * (64 + 20) + 1 = 5377.
  auto g = lower_block_sparse_attention_gpu({1, 1, 16, 1, 0, 1}, {64, 0, 0.2});
  ASSERT_EQ(g.kernels.size(), 4u);
  EXPECT_DOUBLE_EQ(g.kernels[0].flops, 64);    // (1 + 1)*16 + (1 + 1)*16
  EXPECT_DOUBLE_EQ(g.kernels[1].flops, 32);
  EXPECT_DOUBLE_EQ(g.kernels[2].flops, 1);
  EXPECT_DOUBLE_EQ(g.kernels[3].flops, 5377);
  EXPECT_EQ(g.kernels[3].dram_bytes, 8320u);   // 1*16*8 + 64*16*8
}

TEST(AttentionLower, Int8Npu) {
  // v75, 2 heads, d 64, m 5 at p0 27 (32 keys). Per row: one 32-lane vector: dequant 1 + 2*2 = 5,
  // requant 2 + 2 = 4; softmax with FP32 exp (softmax_lower_test): one 64-value vector 43 + row
  // 11 = 54 -> 63; 5 rows -> 315 per head.
  auto w = lower_attention_int8_npu(test::v75(), {2, 1, 64, 5, 27, 32}, 4);
  ASSERT_EQ(w.steps.size(), 7u);
  EXPECT_EQ(w.steps[0].kind, Kind::kGraphCall);
  EXPECT_EQ(w.steps[0].graph_ops, 16u);
  EXPECT_EQ(w.steps[1].kind, Kind::kHmxGemm);
  EXPECT_EQ(w.steps[1].gemm.m, 5u);
  EXPECT_EQ(w.steps[1].gemm.k, 64u);
  EXPECT_EQ(w.steps[1].gemm.n, 32u);
  EXPECT_EQ(w.steps[1].gemm.dtype, hw::DType::kInt8);
  EXPECT_DOUBLE_EQ(w.steps[2].packets, 315);
  EXPECT_EQ(w.steps[2].threads, 4u);
  EXPECT_EQ(w.steps[3].gemm.k, 32u);
  EXPECT_EQ(w.steps[3].gemm.n, 64u);
  // v79 decode, 12 heads (GQA 6), d 80, p0 99: 100 keys = 4 vectors x (3 + 3) = 24; softmax
  // 2 vectors x 21.5 + 11 = 54 -> 78 packets, one row, one thread. 1 + 12*3 steps, 96 graph nodes.
  w = lower_attention_int8_npu(test::v79(), {12, 2, 80, 1, 99, 100}, 4);
  ASSERT_EQ(w.steps.size(), 37u);
  EXPECT_EQ(w.steps[0].graph_ops, 96u);
  EXPECT_DOUBLE_EQ(w.steps[2].packets, 78);
  EXPECT_EQ(w.steps[2].threads, 1u);
  // Estimation alone: 4 nodes per head and one QK GEMM per head.
  auto e = lower_qk_estimate_npu({2, 2, 64, 128, 0, 128});
  ASSERT_EQ(e.steps.size(), 3u);
  EXPECT_EQ(e.steps[0].graph_ops, 8u);
  EXPECT_EQ(e.steps[2].gemm.n, 128u);
  // Its scores leave raw, INT32 (the top-k ranks them unrequantized); the full attention's
  // requantize (the operands' byte).
  EXPECT_EQ(e.steps[1].gemm.out_bytes, 4u);
  EXPECT_EQ(e.steps[2].gemm.out_bytes, 4u);
  EXPECT_EQ(w.steps[1].gemm.out_bytes, 0u);
}

TEST(AttentionLower, FlashNpuTcm) {
  // v75 LUT, Bc 64, 2 heads, d 64, m 37: block 0 = 32 rows over 32 keys (1 tile), block 1 = 5 rows
  // over 37 keys (1 tile). Score vector: 7 VA, 4 VS, 3 VX_DV, 6 VP, 1 VP_VS, 2 loads, 1 store and
  // one gather: gather-bound 36; row vector (a's exp) 36; output vector (1 VA, 1 VS, 1 VX_DV,
  // load, store) issue-bound 5/4. Tile(32): 32*36 + 36 + 32*1.25 = 1228. Finalize(32): per row 6
  // VS + 5 VP -> 6, x32 = 192; reciprocal (1 VA, 3 VS, 4 VX_DV) 4; 32 output vectors x 1 -> 228.
  // Tile(5): 5*36 + 36 + 5*1.25 = 222.25; finalize(5): 30 + 4 + 5 = 39.
  const auto npu = test::v75();
  EXPECT_DOUBLE_EQ(flash_tile_hvx_packets(npu.hvx, 32, 64, 64, ExpVariant::kLut), 1228);
  EXPECT_DOUBLE_EQ(flash_finalize_hvx_packets(npu.hvx, 32, 64), 228);
  auto w = lower_flash_attention_npu(npu, {2, 1, 64, 37, 0, 37}, {64, 32, ExpVariant::kLut}, 4);
  ASSERT_EQ(w.steps.size(), 12u);
  EXPECT_EQ(w.steps[0].kind, Kind::kHmxGemm);
  EXPECT_EQ(w.steps[0].home, hw::OperandHome::kTcm);
  EXPECT_EQ(w.steps[0].gemm.m, 32u);
  EXPECT_EQ(w.steps[0].gemm.n, 64u);
  EXPECT_EQ(w.steps[0].gemm.dtype, hw::DType::kFp16);
  EXPECT_DOUBLE_EQ(w.steps[1].packets, 1228 + 228);
  EXPECT_EQ(w.steps[2].gemm.k, 64u);
  EXPECT_EQ(w.steps[3].gemm.m, 5u);
  EXPECT_DOUBLE_EQ(w.steps[4].packets, 222.25 + 39);
  EXPECT_EQ(w.steps[4].threads, 4u);
}

TEST(AttentionLower, FlashNpuDramDecode) {
  // v79 poly, Bc 32, decode: 4 heads (GQA 2), d 80, p0 99: one row over 100 keys = 4 tiles.
  // Tile(1, 32, 80), two shift-capable resources: score vector (9 VA, 20 VS, 9 VX_DV, 5 VP, 1 VP_VS,
  // load, store): shift (20 + 2 + 5) / 2 = 13.5 = compute 54 / 4; row vector (4 VA, 17 VS, 6 VX_DV)
  // 8.5; 2 output vectors x 1.25 -> 24.5; x 4 = 98; finalize 5.5 + 4 + 2 x 1 = 11.5 -> 109.5.
  // K + V of a kv head = 100*80*2*2 = 32000 B, resident, loaded for heads 0 and 2.
  auto w = lower_flash_attention_npu(test::v79(), {4, 2, 80, 1, 99, 100}, {32, 32, ExpVariant::kPoly}, 4, hw::OperandHome::kDram);
  ASSERT_EQ(w.steps.size(), 22u);  // heads 0, 2: q, kv, qk, hvx, pv, o; heads 1, 3 without kv
  EXPECT_EQ(w.steps[0].kind, Kind::kDma);
  EXPECT_EQ(w.steps[0].bytes, 160u);
  EXPECT_EQ(w.steps[1].bytes, 32000u);
  EXPECT_EQ(w.steps[1].transfers, 2u);
  EXPECT_EQ(w.steps[2].gemm.n, 128u);  // 4 tiles of 32
  EXPECT_DOUBLE_EQ(w.steps[3].packets, 109.5);
  EXPECT_EQ(w.steps[4].gemm.k, 128u);
  EXPECT_EQ(w.steps[5].kind, Kind::kDma);
  EXPECT_EQ(w.steps[6].kind, Kind::kDma);  // head 1: q only
  EXPECT_EQ(w.steps[7].kind, Kind::kHmxGemm);
}

// A long prompt's kernel is counted before its steps are made: past the host memory limit it is
// refused before allocating (it held hundreds of MiB between two of the event loop's checks), and
// within it the list is allocated once, to the size the loops fill.
TEST(AttentionLower, FlashNpuStepsAreCountedBeforeTheyAreMade) {
  const auto npu = test::v75();
  const FlashParams p{64, 64, ExpVariant::kLut};
  const AttentionShape small{4, 2, 64, 300, 0, 300};  // DRAM operands, K+V resident
  const auto w = lower_flash_attention_npu(npu, small, p, 4, hw::OperandHome::kDram);
  EXPECT_EQ(w.steps.capacity(), w.steps.size() + 2);  // counted with kv loads for all 4 heads; GQA loads 2
  const AttentionShape prompt{12, 2, 128, 131072, 0, 131072};  // qwen2-1.5b at 128k: ~600 MiB of steps
  const std::uint64_t resident = resident_bytes();
  ASSERT_GT(resident, 0u);
  const ScopedHostMemoryLimit limit(resident + (std::uint64_t{64} << 20));
  try {
    (void)lower_flash_attention_npu(npu, prompt, p, 4, hw::OperandHome::kDram);
    ADD_FAILURE() << "a kernel of hundreds of MiB passed a limit 64 MiB above the process";
  } catch (const HostMemoryExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("it allocates"), std::string::npos) << e.what();  // before allocating
    EXPECT_LT(resident_bytes(), resident + (std::uint64_t{32} << 20));
  }
}

TEST(AttentionLower, FlashNpuChunksToTcm) {
  // 256 KiB TCM minus the 64 KiB LUT: chunk budget 49152 B. For 32 rows, d 64, Bc 64, g tiles:
  // QK operands 4096 + 8192 g + 4096 g and PV 4096 g + 8192 g + 4096 -> g = 3.
  auto npu = test::v75();
  npu.tcm_bytes = 256 * 1024;
  const FlashParams p{64, 32, ExpVariant::kLut};
  EXPECT_EQ(flash_chunk_tiles(npu, 32, 64, p), 3u);
  // 320 keys = 5 tiles -> chunks of 3 and 2; K+V (81920 B) fits half the spare TCM: loaded once.
  auto w = lower_flash_attention_npu(npu, {1, 1, 64, 32, 288, 320}, p, 4, hw::OperandHome::kDram);
  ASSERT_EQ(w.steps.size(), 9u);
  EXPECT_EQ(w.steps[2].gemm.n, 192u);
  EXPECT_DOUBLE_EQ(w.steps[3].packets, 3 * 1228);
  EXPECT_EQ(w.steps[5].gemm.n, 128u);
  EXPECT_DOUBLE_EQ(w.steps[6].packets, 2 * 1228 + 228);
  for (const auto& st : w.steps) {  // every chunk's GEMM is one the HMX planner accepts in TCM
    if (st.kind == Kind::kHmxGemm) {
      EXPECT_NO_THROW(hw::plan_hmx_gemm(npu, st.gemm, st.home)) << st.name;
    }
  }
  npu.tcm_bytes = 64 * 1024;  // nothing left beside the LUT
  EXPECT_THROW(flash_chunk_tiles(npu, 32, 64, p), std::invalid_argument);
}

TEST(AttentionLower, FlashCpuGpu) {
  // CPU, LUT (3 exp ops), Bc 64, 2 heads, d 64, m 37: scores 2*(32*64 + 5*64) = 4736, row-tiles
  // 74, rows 74: 4736*(256 + 3 + 3) + 74*(128 + 2 + 3) + 74*65 = 1255484; bytes FP16
  // Q+O 2*37*64*4 + K+V 2*37*64*4 = 37888.
  auto c = lower_flash_attention_cpu({2, 1, 64, 37, 0, 37}, {64, 32, ExpVariant::kLut}, 2);
  EXPECT_DOUBLE_EQ(c.tasks.at(0).ops, 1255484);
  EXPECT_EQ(c.tasks[0].dram_bytes, 37888u);
  EXPECT_EQ(c.tasks[0].dtype, hw::DType::kFp16);
  // GPU, poly (10), Bc 32, decode 4 heads d 80 p0 99: scores 4*128 = 512, row-tiles 16, rows 4:
  // 512*333 + 16*172 + 4*81 = 173572; bytes 4*80*4 + 4*100*80*4 = 129280.
  auto g = lower_flash_attention_gpu({4, 2, 80, 1, 99, 100}, {32, 32, ExpVariant::kPoly});
  EXPECT_DOUBLE_EQ(g.kernels.at(0).flops, 173572);
  EXPECT_EQ(g.kernels[0].dram_bytes, 129280u);
  EXPECT_EQ(g.kernels[0].rows, 4u);
}

}  // namespace
}  // namespace socsim::kernels
