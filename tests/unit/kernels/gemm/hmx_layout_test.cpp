#include "kernels/gemm/hmx_layout.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernel_test_util.h"

namespace socsim::kernels {
namespace {

TEST(GemmHmxLayout, TwoRowInterleaveInsideATile) {
  const HmxTiled t = make_hmx_tiled(64, 64, TileOrder::kRowMajor);
  // (r,c), (r+1,c), (r,c+1), (r+1,c+1), ...: a row pair is a transposed 2 x 32 block.
  EXPECT_EQ(t.offset(0, 0), 0);
  EXPECT_EQ(t.offset(1, 0), 1);
  EXPECT_EQ(t.offset(0, 1), 2);
  EXPECT_EQ(t.offset(1, 1), 3);
  EXPECT_EQ(t.offset(0, 31), 62);
  EXPECT_EQ(t.offset(1, 31), 63);
  EXPECT_EQ(t.offset(2, 0), 64);         // next pair
  EXPECT_EQ(t.offset(31, 31), 1023);     // pair 15: 15*64 + 31*2 + 1
  EXPECT_EQ(t.offset(0, 32), 1024);      // row-major tiles: tile (0,1) second
  EXPECT_EQ(t.offset(32, 0), 2048);
  const HmxTiled cm = make_hmx_tiled(64, 64, TileOrder::kColumnMajor);
  EXPECT_EQ(cm.offset(32, 0), 1024);     // column-major tiles: tile (1,0) second
  EXPECT_EQ(cm.offset(0, 32), 2048);
}

TEST(GemmHmxLayout, OffsetsAreABijectionOntoThePaddedStorage) {
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 65}, {64, 32}, {95, 7}}) {
    for (TileOrder order : {TileOrder::kRowMajor, TileOrder::kColumnMajor}) {
      const HmxTiled t = make_hmx_tiled(rows, cols, order);
      const std::int64_t pr = t.tile_rows() * kHmxTile, pc = t.tile_cols() * kHmxTile;
      ASSERT_EQ(t.data.numel(), static_cast<std::size_t>(pr * pc));
      EXPECT_EQ(t.data.layout(), Layout::kHmxTiled);
      std::vector<int> hits(static_cast<std::size_t>(pr * pc), 0);
      for (std::int64_t r = 0; r < pr; ++r)
        for (std::int64_t c = 0; c < pc; ++c) ++hits.at(static_cast<std::size_t>(t.offset(r, c)));
      for (int h : hits) ASSERT_EQ(h, 1);
    }
  }
}

TEST(GemmHmxLayout, RoundTripKeepsEveryBitAndPadsWithZeros) {
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 65}, {70, 100}}) {
    for (TileOrder order : {TileOrder::kRowMajor, TileOrder::kColumnMajor}) {
      Tensor x = Tensor::matrix(rows, cols, ElemType::kF16);
      // Distinct bit patterns, NaNs and all: the layout moves bits, it does not look at them.
      auto bits = x.data<half>();
      for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = half_from_bits(static_cast<std::uint16_t>(i * 7919 + 1));
      const HmxTiled t = to_hmx_tiles(x, order);
      const Tensor back = from_hmx_tiles(t);
      ASSERT_EQ(std::memcmp(back.raw().data(), x.raw().data(), x.bytes()), 0);
      std::size_t nonzero = 0;
      for (auto h : t.data.data<half>()) nonzero += half_bits(h) != 0;
      EXPECT_EQ(nonzero, x.numel());  // every padding element is +0; no input pattern is 0 here
      EXPECT_EQ(half_bits(t.data.data<half>()[static_cast<std::size_t>(t.offset(rows - 1, cols - 1))]),
                half_bits(bits.back()));
    }
  }
}

TEST(GemmHmxLayout, RejectsNonHalfInput) {
  EXPECT_THROW(to_hmx_tiles(test::random_f32(2, 2, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
