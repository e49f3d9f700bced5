#pragma once
// The HMX FP16 tile layout (TTS paper, Fig. 4a). A matrix is cut into 32x32 tiles of 2 KiB,
// zero-padded to whole tiles. Inside a tile the rows are taken in pairs and each pair is stored
// like a transposed 2 x 32 block, (r,c), (r+1,c), (r,c+1), (r+1,c+1), ...:
//   offset in tile of (r, c) = (r / 2) * 64 + c * 2 + r % 2        (r, c within the tile)
// The tiles themselves follow one another row-major (activations and outputs, the Layout::kHmxTiled
// convention) or column-major (weights in a full GEMM, Fig. 4b: one output column's k tiles are
// contiguous because HMX takes inner products a tile at a time).
#include <cstdint>

#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

inline constexpr std::int64_t kHmxTile = 32;
inline constexpr std::int64_t kHmxTileElems = kHmxTile * kHmxTile;

enum class TileOrder { kRowMajor, kColumnMajor };

struct HmxTiled {
  Tensor data;                  // f16, Layout::kHmxTiled, shape {tile_rows()*32, tile_cols()*32}
  std::int64_t rows = 0, cols = 0;  // logical extent (data is padded with zeros)
  TileOrder order = TileOrder::kRowMajor;

  std::int64_t tile_rows() const { return (rows + kHmxTile - 1) / kHmxTile; }
  std::int64_t tile_cols() const { return (cols + kHmxTile - 1) / kHmxTile; }
  // Index of element (r, c) in data, for r < tile_rows()*32 and c < tile_cols()*32.
  std::int64_t offset(std::int64_t r, std::int64_t c) const {
    const std::int64_t tr = r / kHmxTile, tc = c / kHmxTile, ir = r % kHmxTile, ic = c % kHmxTile;
    const std::int64_t tile = order == TileOrder::kRowMajor ? tr * tile_cols() + tc : tc * tile_rows() + tr;
    return tile * kHmxTileElems + (ir / 2) * (2 * kHmxTile) + ic * 2 + ir % 2;
  }
};

// An all-zero tiled matrix of the given logical extent.
HmxTiled make_hmx_tiled(std::int64_t rows, std::int64_t cols, TileOrder order = TileOrder::kRowMajor);

// Row-major FP16 matrix <-> tile layout. from_hmx_tiles(to_hmx_tiles(x, o)) == x for either order.
HmxTiled to_hmx_tiles(const Tensor& x, TileOrder order = TileOrder::kRowMajor);
Tensor from_hmx_tiles(const HmxTiled& t);

// Copies row r, columns [c0, c0+count), of a tiled matrix into dst (count may run into padding),
// and back.
void gather_tiled_row(const HmxTiled& t, std::int64_t r, std::int64_t c0, std::int64_t count, half* dst);
void scatter_tiled_row(HmxTiled& t, std::int64_t r, std::int64_t c0, std::int64_t count, const half* src);

}  // namespace socsim::kernels
