#include "kernels/gemm/gemm_f16_hmx.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gemm/half_output_sink.h"
#include "kernels/gemm/row_major_packers.h"

namespace socsim::kernels {

namespace {

// Activation rows are gathered to contiguous FP16 (stride 2 inside each tile), then widened and
// packed like row-major rows (row_major_packers.h).
class TiledLeft final : public LeftPacker {
 public:
  explicit TiledLeft(const HmxTiled& a) : a_(a) {}
  void pack(float* dst, std::int64_t i0, std::int64_t mc, std::int64_t k0, std::int64_t kc) const override {
    std::vector<half> row(static_cast<std::size_t>(kc));
    std::vector<float> rows(static_cast<std::size_t>(kGemmMr * kc));
    for (std::int64_t p = 0; p * kGemmMr < mc; ++p) {
      const int valid = static_cast<int>(std::min<std::int64_t>(kGemmMr, mc - p * kGemmMr));
      for (int r = 0; r < valid; ++r) {
        gather_tiled_row(a_, i0 + p * kGemmMr + r, k0, kc, row.data());
        widen(row.data(), rows.data() + r * kc, static_cast<std::size_t>(kc));
      }
      interleave_left_panel(rows.data(), valid, kc, dst + p * kc * kGemmMr);
    }
  }

 private:
  const HmxTiled& a_;
};

// Weights are packed tile by tile: the rows of one tile that fall in the depth block are contiguous
// (pair blocks of 64), and with column-major tile order so are the depth block's tiles of one tile
// column, so the source is read sequentially and widened in bulk; each tile row then fills 16 or
// 32 contiguous panel columns. Panels never straddle tiles: j0 is a multiple of kGemmNr, so each
// 16-column panel is one half of a tile column.
class TiledRight final : public RightPacker {
 public:
  explicit TiledRight(const HmxTiled& w) : w_(w) {}
  void pack(float* dst, std::int64_t k0, std::int64_t kc, std::int64_t j0, std::int64_t nc) const override {
    static_assert(kGemmKc % 2 == 0 && kHmxTile % kGemmNr == 0, "depth blocks start on row pairs; panels fit tiles");
    const half* src = w_.data.data<half>().data();
    if (nc % kGemmNr != 0) {
      float* last = dst + (nc / kGemmNr) * kc * kGemmNr;
      std::fill(last, last + kc * kGemmNr, 0.0f);
    }
    std::vector<float> tile(static_cast<std::size_t>(kHmxTileElems));
    for (std::int64_t c = j0; c < j0 + nc;) {
      const std::int64_t tile_col = c / kHmxTile * kHmxTile, c_end = std::min(j0 + nc, tile_col + kHmxTile);
      for (std::int64_t k = k0; k < k0 + kc;) {
        const std::int64_t k_end = std::min(k0 + kc, (k / kHmxTile + 1) * kHmxTile);
        widen(src + w_.offset(k, tile_col), tile.data(), static_cast<std::size_t>((k_end - k + 1) / 2 * 2 * kHmxTile));
        for (std::int64_t kk = k; kk < k_end; ++kk) {
          // Element (kk, tile_col + x) sits at row[2x] of the widened pair block.
          const float* row = tile.data() + (kk - k) / 2 * 2 * kHmxTile + (kk - k) % 2;
          for (std::int64_t col = c; col < c_end;) {
            const std::int64_t run = std::min(c_end, (col - j0) / kGemmNr * kGemmNr + j0 + kGemmNr) - col;
            float* out = dst + ((col - j0) / kGemmNr * kc + (kk - k0)) * kGemmNr + (col - j0) % kGemmNr;
            const float* in = row + 2 * (col - tile_col);
            for (std::int64_t x = 0; x < run; ++x) out[x] = in[2 * x];
            col += run;
          }
        }
        k = k_end;
      }
      c = c_end;
    }
  }

 private:
  const HmxTiled& w_;
};

struct TiledHalfWriter {
  HmxTiled* c;
  void write(std::int64_t i, std::int64_t j, const half* values, int count) const {
    scatter_tiled_row(*c, i, j, count, values);
  }
};

}  // namespace

HmxTiled gemm_f16_hmx(const HmxTiled& a, const HmxTiled& w, unsigned threads) {
  if (a.cols != w.rows) {
    throw std::invalid_argument("HMX GEMM inner extents differ: A is " + std::to_string(a.rows) + "x" +
                                std::to_string(a.cols) + ", W is " + std::to_string(w.rows) + "x" + std::to_string(w.cols));
  }
  const GemmDims d{a.rows, a.cols, w.cols};
  HmxTiled c = make_hmx_tiled(d.m, d.n, TileOrder::kRowMajor);
  using Sink = HalfOutputSink<TiledHalfWriter>;
  std::vector<float> scratch(Sink::scratch_size(d, kGemmKc));
  run_packed_gemm(d, TiledLeft(a), TiledRight(w), Sink(d, kGemmKc, scratch.data(), TiledHalfWriter{&c}), kGemmKc,
                  threads);
  return c;
}

}  // namespace socsim::kernels
