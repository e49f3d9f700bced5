#include "kernels/gemm/hmx_layout.h"

#include <algorithm>
#include <stdexcept>

namespace socsim::kernels {

HmxTiled make_hmx_tiled(std::int64_t rows, std::int64_t cols, TileOrder order) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("tiled matrix extent must be >= 0");
  HmxTiled t{Tensor(), rows, cols, order};
  t.data = Tensor({t.tile_rows() * kHmxTile, t.tile_cols() * kHmxTile}, ElemType::kF16, Layout::kHmxTiled);
  return t;
}

void gather_tiled_row(const HmxTiled& t, std::int64_t r, std::int64_t c0, std::int64_t count, half* dst) {
  const half* src = t.data.data<half>().data();
  // Within one tile the row's elements sit 2 apart, so walk tile by tile.
  for (std::int64_t c = c0; c < c0 + count;) {
    const std::int64_t run = std::min(c0 + count, (c / kHmxTile + 1) * kHmxTile) - c;
    const half* p = src + t.offset(r, c);
    for (std::int64_t x = 0; x < run; ++x) dst[c - c0 + x] = p[2 * x];
    c += run;
  }
}

void scatter_tiled_row(HmxTiled& t, std::int64_t r, std::int64_t c0, std::int64_t count, const half* src) {
  half* dst = t.data.data<half>().data();
  for (std::int64_t c = c0; c < c0 + count;) {
    const std::int64_t run = std::min(c0 + count, (c / kHmxTile + 1) * kHmxTile) - c;
    half* p = dst + t.offset(r, c);
    for (std::int64_t x = 0; x < run; ++x) p[2 * x] = src[c - c0 + x];
    c += run;
  }
}

HmxTiled to_hmx_tiles(const Tensor& x, TileOrder order) {
  if (x.rank() != 2 || x.type() != ElemType::kF16 || x.layout() != Layout::kRowMajor) {
    throw std::invalid_argument("to_hmx_tiles takes a row-major float16 matrix");
  }
  HmxTiled t = make_hmx_tiled(x.dim(0), x.dim(1), order);
  const half* src = x.data<half>().data();
  half* dst = t.data.data<half>().data();
  for (std::int64_t r = 0; r < t.rows; ++r) {
    for (std::int64_t c = 0; c < t.cols; ++c) dst[t.offset(r, c)] = src[r * t.cols + c];
  }
  return t;
}

Tensor from_hmx_tiles(const HmxTiled& t) {
  Tensor x = Tensor::matrix(t.rows, t.cols, ElemType::kF16);
  half* dst = x.data<half>().data();
  for (std::int64_t r = 0; r < t.rows; ++r) gather_tiled_row(t, r, 0, t.cols, dst + r * t.cols);
  return x;
}

}  // namespace socsim::kernels
