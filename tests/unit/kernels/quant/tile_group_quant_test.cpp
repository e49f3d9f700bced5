// Tile-group quantization and super-groups (TTS 5.1): the layout transforms are bijections, the
// vlut16 dequantization is exact, every dequantization layout gives bit-identical products for
// the same quantized weights, and tile groups' quantization error matches conventional groups'.
#include "kernels/quant/tile_group_quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "kernels/gemm/gemm_float.h"
#include "kernels/gemm/gemm_w4a16.h"
#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::kernels {
namespace {

Tensor gaussian(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 0.02f);  // pretrained weights: roughly zero-mean Gaussian
  Tensor t = Tensor::matrix(rows, cols, ElemType::kF32);
  for (auto& v : t.data<float>()) v = nd(rng);
  return t;
}

Tensor transpose_f32(const Tensor& x) {
  Tensor t = Tensor::matrix(x.dim(1), x.dim(0), ElemType::kF32);
  for (std::int64_t r = 0; r < x.dim(0); ++r) {
    for (std::int64_t c = 0; c < x.dim(1); ++c) t.data<float>()[static_cast<std::size_t>(c * x.dim(0) + r)] = x.data<float>()[static_cast<std::size_t>(r * x.dim(1) + c)];
  }
  return t;
}

Tensor transpose_f16(const Tensor& x) {
  Tensor t = Tensor::matrix(x.dim(1), x.dim(0), ElemType::kF16);
  for (std::int64_t r = 0; r < x.dim(0); ++r) {
    for (std::int64_t c = 0; c < x.dim(1); ++c) t.data<half>()[static_cast<std::size_t>(c * x.dim(0) + r)] = x.data<half>()[static_cast<std::size_t>(r * x.dim(1) + c)];
  }
  return t;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::equal(a.raw().begin(), a.raw().end(), b.raw().begin());
}

double rel_error(const Tensor& approx, const Tensor& exact) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < exact.numel(); ++i) {
    const double d = approx.data<float>()[i] - exact.data<float>()[i];
    num += d * d;
    den += static_cast<double>(exact.data<float>()[i]) * exact.data<float>()[i];
  }
  return std::sqrt(num / den);
}

TEST(TileGroupQuant, HmxOrderIsABijectionAndAGroupIsTwoRowsBySixteenColumns) {
  const std::int64_t k = 40, n = 50, kp = 64, np = 64;  // padded to whole tiles
  std::set<std::int64_t> seen;
  std::vector<std::pair<std::int64_t, std::int64_t>> at(static_cast<std::size_t>(kp * np));
  for (std::int64_t r = 0; r < kp; ++r) {
    for (std::int64_t c = 0; c < np; ++c) {
      const std::int64_t p = hmx_weight_position(k, n, r, c);
      ASSERT_GE(p, 0);
      ASSERT_LT(p, kp * np);
      EXPECT_TRUE(seen.insert(p).second) << r << "," << c;
      at[static_cast<std::size_t>(p)] = {r, c};
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(seen.size()), kp * np);
  // Every run of 32 positions (a tile group) covers rows {2i, 2i+1} x 16 consecutive columns.
  for (std::int64_t g = 0; g < kp * np / 32; ++g) {
    std::set<std::int64_t> rows, cols;
    for (std::int64_t j = 0; j < 32; ++j) {
      rows.insert(at[static_cast<std::size_t>(g * 32 + j)].first);
      cols.insert(at[static_cast<std::size_t>(g * 32 + j)].second);
    }
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(*rows.begin() % 2, 0);
    ASSERT_EQ(cols.size(), 16u);
    EXPECT_EQ(*cols.rbegin() - *cols.begin(), 15);
  }
  // Tiles are column-major: the second tile in memory is the strip's next k tile.
  EXPECT_EQ(hmx_weight_position(k, n, 32, 0), 1024);
  EXPECT_EQ(hmx_weight_position(k, n, 0, 32), 2048);
}

TEST(TileGroupQuant, SuperGroupsAreABijectionOfTheBlocks) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(0, 255);
  // Any Q4_0 block bytes (scales included) survive coalesce -> split, and any super-group bytes
  // survive split -> coalesce.
  BlockQuantized q = quantize_blocks(test::random_f32(4, 512, 5), BlockFormat::kQ4_0);  // 64 blocks
  for (auto& b : q.bytes.raw()) b = static_cast<std::uint8_t>(byte(rng));
  const auto sg = coalesce_super_groups(q);
  ASSERT_EQ(sg.size(), 8u * kSuperGroupBytes);  // 4.5 bits per weight either way
  EXPECT_TRUE(same_bits(split_super_groups(sg, 4, 512).bytes, q.bytes));
  std::vector<std::uint8_t> any(sg.size());
  for (auto& b : any) b = static_cast<std::uint8_t>(byte(rng));
  EXPECT_EQ(coalesce_super_groups(split_super_groups(any, 4, 512)), any);
  // Byte j of a super-group holds weights j and j + 128: weight 130 (group 4, element 2) is the
  // high nibble of byte 2 and came from the low nibble of group 4's byte 2.
  EXPECT_EQ(sg[2] >> 4, q.block(0, 4)[2 + 2] & 0xF);
  EXPECT_THROW(coalesce_super_groups(quantize_blocks(test::random_f32(1, 64, 1), BlockFormat::kQ4_0)), std::invalid_argument);
}

TEST(TileGroupQuant, Vlut16DequantizationIsExact) {
  const BlockQuantized q = quantize_blocks(test::random_f32(8, 1024, 9, -3, 3), BlockFormat::kQ4_0);
  const auto v = dequantize_super_groups(coalesce_super_groups(q));
  const Tensor ref = dequantize_blocks_to_half(q);
  ASSERT_EQ(v.size(), ref.numel());
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(half_bits(v[i]), half_bits(ref.data<half>()[i])) << i;
}

TEST(TileGroupQuant, LayoutsGiveIdenticalProductsAndComparableError) {
  const std::int64_t m = 5, k = 256, n = 96;
  const Tensor w = gaussian(k, n, 17);
  const Tensor a = test::random_f16(m, k, 23);
  for (BlockFormat f : {BlockFormat::kQ4_0, BlockFormat::kQ8_0}) {
    // hmx-layout: tile groups dequantized one group at a time, written in order.
    const TileGroupWeights tg = quantize_tile_groups(w, f);
    const Tensor hmx = gemm_f16(a, tile_group_weights_to_half(tg));
    if (f == BlockFormat::kQ4_0) {
      // coalesced: the same blocks as super-groups through the vlut16 path.
      HmxTiled t = make_hmx_tiled(k, n, TileOrder::kColumnMajor);
      const auto v = dequantize_super_groups(coalesce_super_groups(tg.blocks));
      std::copy(v.begin(), v.end(), t.data.data<half>().begin());
      EXPECT_TRUE(same_bits(gemm_f16(a, from_hmx_tiles(t)), hmx));
    }
    // baseline: conventional groups scattered into the tile layout give ggml's product exactly.
    const BlockQuantized conv = quantize_blocks(transpose_f32(w), f);
    const Tensor scattered = from_hmx_tiles(to_hmx_tiles(transpose_f16(dequantize_blocks_to_half(conv)), TileOrder::kColumnMajor));
    EXPECT_TRUE(same_bits(gemm_f16(a, scattered), gemm_w4a16(a, conv)));
    // Tile groups (2 x 16) versus conventional groups (32 x 1) on Gaussian weights: comparable.
    const double e_tile = rel_error(tile_group_weights_to_float(tg), w);
    const double e_conv = rel_error(transpose_f32(dequantize_blocks(conv)), w);
    std::printf("  %s weight rel error: tile groups %.4f, conventional groups %.4f\n", block_format_name(f), e_tile, e_conv);
    EXPECT_GT(e_tile, 0.0);
    EXPECT_LT(std::abs(e_tile - e_conv), 0.1 * e_conv);
  }
}

}  // namespace
}  // namespace socsim::kernels
