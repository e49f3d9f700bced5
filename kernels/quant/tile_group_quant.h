#pragma once
// TTS's weight formats for the NPU (paper 5.1), the `compute` face of the dequantization layouts
// (kernels/gemm/dequant_layout.h; their costs are in hvx_costs.h):
//
// Tile groups (5.1.1): W [k x n] is permuted offline into the HMX weight layout -- 32x32 tiles,
// column-major tile order (a 32-column strip's k tiles one after another), rows taken in pairs
// inside a tile (hmx_layout.h, rows = k) -- and every run of 32 consecutive elements *in that
// order* is quantized as one ggml block (Q4_0 or Q8_0, round-to-nearest as ggml). A group is then
// a 2 (k) x 16 (n) block of W, and dequantizing the blocks in order writes the FP16 tiles to TCM
// contiguously. Conventional groups (ggml) are 32 consecutive k of one column instead.
//
// Super-groups (5.1.2, Q4_0): 8 consecutive groups (256 weights) repacked so their nibbles fill
// one 128-B HVX register: byte j holds weight j in its low nibble and weight j + 128 in its high
// nibble (q + 8, as ggml stores it), followed by the 8 FP16 scales (little-endian): 144 B, the
// same 4.5 bits per weight. The paper shows the exact permutation only in a figure; this one
// makes vand / vlsr yield weights 0..127 and 128..255 in order, each then one vlut16.
#include <cstdint>
#include <vector>

#include "kernels/gemm/hmx_layout.h"
#include "kernels/quant/block_quant.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

inline constexpr std::int64_t kSuperGroupBlocks = 8;
inline constexpr std::int64_t kSuperGroupBytes = 144;

struct TileGroupWeights {
  std::int64_t k = 0, n = 0;  // W [k x n], logical (tiles padded with zeros)
  BlockQuantized blocks;      // one row: the padded tiles' elements in HMX order, in blocks of 32
};

// Where element (r, c) of W [k x n] goes in HMX order (r < padded k, c < padded n): a bijection
// onto [0, padded k x padded n).
std::int64_t hmx_weight_position(std::int64_t k, std::int64_t n, std::int64_t r, std::int64_t c);

// W: float32 [k x n].
TileGroupWeights quantize_tile_groups(const Tensor& w, BlockFormat format);
// The FP16 tiles HVX writes to TCM: element i of the HMX order = half(float(d) * q).
HmxTiled dequantize_tile_groups(const TileGroupWeights& w);
// Row-major FP16 [k x n] of the same values (for a GEMM against the tiles' matrix).
Tensor tile_group_weights_to_half(const TileGroupWeights& w);
// float32 [k x n]: float(d) * q (the quantization's values, for its error).
Tensor tile_group_weights_to_float(const TileGroupWeights& w);

// Q4_0 blocks (a whole number of super-groups) <-> super-groups; split(coalesce(b)) == b.
std::vector<std::uint8_t> coalesce_super_groups(const BlockQuantized& q4);
BlockQuantized split_super_groups(const std::vector<std::uint8_t>& bytes, std::int64_t rows, std::int64_t cols);
// The vlut16 dequantization of super-groups: nibble -> FP16 value from the table {-8..7}, the
// group's scale broadcast, one FP16 multiply: the values in order, bit-identical to
// dequantize_blocks_to_half of the blocks they came from.
std::vector<half> dequantize_super_groups(const std::vector<std::uint8_t>& bytes);

}  // namespace socsim::kernels
