#include "kernels/quant/tile_group_quant.h"

#include <array>
#include <stdexcept>

namespace socsim::kernels {

namespace {

HmxTiled weight_tiles(std::int64_t k, std::int64_t n) { return make_hmx_tiled(k, n, TileOrder::kColumnMajor); }

}  // namespace

std::int64_t hmx_weight_position(std::int64_t k, std::int64_t n, std::int64_t r, std::int64_t c) {
  HmxTiled shape{Tensor(), k, n, TileOrder::kColumnMajor};
  return shape.offset(r, c);
}

TileGroupWeights quantize_tile_groups(const Tensor& w, BlockFormat format) {
  if (w.rank() != 2) throw std::invalid_argument("tile-group quantization takes a matrix");
  const std::int64_t k = w.dim(0), n = w.dim(1);
  const HmxTiled shape = weight_tiles(k, n);
  const std::int64_t rows = shape.tile_rows() * kHmxTile, cols = shape.tile_cols() * kHmxTile;
  Tensor ordered = Tensor::matrix(1, rows * cols, ElemType::kF32);  // padding stays 0
  auto dst = ordered.data<float>();
  const auto src = w.data<float>();
  for (std::int64_t r = 0; r < k; ++r) {
    for (std::int64_t c = 0; c < n; ++c) dst[static_cast<std::size_t>(shape.offset(r, c))] = src[static_cast<std::size_t>(r * n + c)];
  }
  return {k, n, quantize_blocks(ordered, format)};
}

HmxTiled dequantize_tile_groups(const TileGroupWeights& w) {
  HmxTiled t = weight_tiles(w.k, w.n);
  const Tensor values = dequantize_blocks_to_half(w.blocks);
  const auto src = values.data<half>();
  auto dst = t.data.data<half>();
  if (src.size() != dst.size()) throw std::invalid_argument("tile-group blocks do not cover the tiles");
  for (std::size_t i = 0; i < src.size(); ++i) dst[i] = src[i];
  return t;
}

Tensor tile_group_weights_to_half(const TileGroupWeights& w) { return from_hmx_tiles(dequantize_tile_groups(w)); }

Tensor tile_group_weights_to_float(const TileGroupWeights& w) {
  const HmxTiled shape = weight_tiles(w.k, w.n);
  const Tensor values = dequantize_blocks(w.blocks);
  const auto src = values.data<float>();
  Tensor out = Tensor::matrix(w.k, w.n, ElemType::kF32);
  auto dst = out.data<float>();
  for (std::int64_t r = 0; r < w.k; ++r) {
    for (std::int64_t c = 0; c < w.n; ++c) dst[static_cast<std::size_t>(r * w.n + c)] = src[static_cast<std::size_t>(shape.offset(r, c))];
  }
  return out;
}

std::vector<std::uint8_t> coalesce_super_groups(const BlockQuantized& q4) {
  if (q4.format != BlockFormat::kQ4_0) throw std::invalid_argument("super-groups hold Q4_0 blocks");
  const std::int64_t blocks = q4.rows * q4.blocks_per_row();
  if (blocks % kSuperGroupBlocks != 0) throw std::invalid_argument("super-groups need a multiple of 8 blocks");
  std::vector<std::uint8_t> out(static_cast<std::size_t>(blocks / kSuperGroupBlocks * kSuperGroupBytes));
  const std::uint8_t* in = q4.bytes.raw().data();
  for (std::int64_t s = 0; s < blocks / kSuperGroupBlocks; ++s) {
    std::array<std::uint8_t, 256> nib{};
    std::uint8_t* sg = out.data() + s * kSuperGroupBytes;
    for (std::int64_t g = 0; g < kSuperGroupBlocks; ++g) {
      const std::uint8_t* b = in + (s * kSuperGroupBlocks + g) * block_bytes(BlockFormat::kQ4_0);
      for (int i = 0; i < 16; ++i) {  // ggml: byte i = element i (low), element i + 16 (high)
        nib[static_cast<std::size_t>(g * 32 + i)] = b[2 + i] & 0xF;
        nib[static_cast<std::size_t>(g * 32 + i + 16)] = b[2 + i] >> 4;
      }
      sg[128 + 2 * g] = b[0], sg[128 + 2 * g + 1] = b[1];
    }
    for (int j = 0; j < 128; ++j) sg[j] = static_cast<std::uint8_t>(nib[static_cast<std::size_t>(j)] | (nib[static_cast<std::size_t>(j + 128)] << 4));
  }
  return out;
}

BlockQuantized split_super_groups(const std::vector<std::uint8_t>& bytes, std::int64_t rows, std::int64_t cols) {
  BlockQuantized q;
  q.format = BlockFormat::kQ4_0, q.rows = rows, q.cols = cols;
  const std::int64_t blocks = rows * q.blocks_per_row();
  if (blocks % kSuperGroupBlocks != 0 || static_cast<std::int64_t>(bytes.size()) != blocks / kSuperGroupBlocks * kSuperGroupBytes) {
    throw std::invalid_argument("super-group bytes do not match the matrix");
  }
  q.bytes = Tensor::matrix(rows, q.blocks_per_row() * block_bytes(BlockFormat::kQ4_0), ElemType::kI8);
  std::uint8_t* outp = q.bytes.raw().data();
  for (std::int64_t s = 0; s < blocks / kSuperGroupBlocks; ++s) {
    const std::uint8_t* sg = bytes.data() + s * kSuperGroupBytes;
    auto nibble = [sg](int v) { return v < 128 ? sg[v] & 0xF : sg[v - 128] >> 4; };
    for (std::int64_t g = 0; g < kSuperGroupBlocks; ++g) {
      std::uint8_t* b = outp + (s * kSuperGroupBlocks + g) * block_bytes(BlockFormat::kQ4_0);
      b[0] = sg[128 + 2 * g], b[1] = sg[128 + 2 * g + 1];
      const int base = static_cast<int>(g * 32);
      for (int i = 0; i < 16; ++i) b[2 + i] = static_cast<std::uint8_t>(nibble(base + i) | (nibble(base + i + 16) << 4));
    }
  }
  return q;
}

std::vector<half> dequantize_super_groups(const std::vector<std::uint8_t>& bytes) {
  if (bytes.size() % kSuperGroupBytes != 0) throw std::invalid_argument("not a whole number of super-groups");
  std::array<half, 16> table{};  // vlut16's table: INT4 code -> FP16 value q - 8
  for (int i = 0; i < 16; ++i) table[static_cast<std::size_t>(i)] = to_half(static_cast<float>(i - 8));
  std::vector<half> out;
  out.reserve(bytes.size() / kSuperGroupBytes * 256);
  for (std::size_t s = 0; s < bytes.size(); s += kSuperGroupBytes) {
    const std::uint8_t* sg = bytes.data() + s;
    for (int v = 0; v < 256; ++v) {
      const int code = v < 128 ? sg[v] & 0xF : sg[v - 128] >> 4;
      const int g = v / 32;
      const half d = half_from_bits(static_cast<std::uint16_t>(sg[128 + 2 * g] | (sg[128 + 2 * g + 1] << 8)));
      // One FP16 multiply of the looked-up value by the broadcast scale: the exact product
      // (|q| <= 8 times an FP16 scale fits FP32 exactly) rounded once to FP16.
      out.push_back(to_half(to_float(table[static_cast<std::size_t>(code)]) * to_float(d)));
    }
  }
  return out;
}

}  // namespace socsim::kernels
