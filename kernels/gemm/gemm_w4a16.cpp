#include "kernels/gemm/gemm_w4a16.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gemm/bulk_convert.h"
#include "kernels/gemm/half_output_sink.h"
#include "kernels/gemm/row_major_packers.h"
#include "kernels/gemm/w4a16_fused.h"

namespace socsim::kernels {

static_assert(kGemmKc % kQuantBlock == 0, "depth blocks must hold whole quantization blocks");

namespace {

// The weight packer (packed_gemm.h) for Q4_0/Q8_0 blocks stored transposed (rows = output
// columns, blocks along k). It dequantizes while packing, the host analogue of the NPU's HVX
// dequantization into TCM: Q4_0 through a 16-entry table per block (the vlut16 idea: the 16
// possible FP16 values d * (q - 8) are rounded once, then every nibble is a lookup), Q8_0 by
// rounding d * q per weight. k0 is a multiple of 32: depth blocks hold whole quantization blocks.
class BlockRight final : public RightPacker {
 public:
  explicit BlockRight(const BlockQuantized& w) : w_(w) {}
  void pack(float* dst, std::int64_t k0, std::int64_t kc, std::int64_t j0, std::int64_t nc) const override;

 private:
  const BlockQuantized& w_;
};

// Scales of blocks [b0, b0+nb) of columns [j0, j0+count), as float: scales[c*nb + b].
std::vector<float> block_scales(const BlockQuantized& w, std::int64_t j0, std::int64_t count, std::int64_t b0,
                                std::int64_t nb) {
  std::vector<half> h(static_cast<std::size_t>(count * nb));
  const std::int64_t stride = block_bytes(w.format);
  for (std::int64_t c = 0; c < count; ++c) {
    const std::uint8_t* blocks = w.block(j0 + c, b0);  // a row's blocks are contiguous
    for (std::int64_t b = 0; b < nb; ++b) h[c * nb + b] = block_scale(blocks + b * stride);
  }
  std::vector<float> f(h.size());
  widen(h.data(), f.data(), h.size());
  return f;
}

// One panel of Q4_0 columns: table[(c*nb + b)*16 + q] = half(d * (q - 8)), then lookups.
void pack_q4_panel(const BlockQuantized& w, std::int64_t j0, int count, std::int64_t k0, std::int64_t kc,
                   float* panel) {
  const std::int64_t b0 = k0 / kQuantBlock, nb = (kc + kQuantBlock - 1) / kQuantBlock;
  const auto d = block_scales(w, j0, count, b0, nb);
  std::vector<float> table(d.size() * 16);
  for (std::size_t i = 0; i < d.size(); ++i) {
    for (int q = 0; q < 16; ++q) table[i * 16 + q] = d[i] * static_cast<float>(q - 8);  // exact in float
  }
  round_through_half(table.data(), table.size());
  // Panel rows are written whole (16 contiguous floats): for each block, byte x of every column
  // gives panel rows x and x + 16.
  const std::uint8_t* qs[kGemmNr];
  const float* t[kGemmNr];
  for (std::int64_t b = 0; b < nb; ++b) {
    for (int c = 0; c < count; ++c) {
      qs[c] = w.block(j0 + c, b0 + b) + 2;
      t[c] = table.data() + (c * nb + b) * 16;
    }
    const std::int64_t kk0 = b * kQuantBlock;
    for (int x = 0; x < kQuantBlock / 2; ++x) {
      float* lo = panel + (kk0 + x) * kGemmNr;
      float* hi = panel + (kk0 + x + kQuantBlock / 2) * kGemmNr;
      const bool hi_in = kk0 + x + kQuantBlock / 2 < kc;
      if (kk0 + x >= kc) break;
      for (int c = 0; c < count; ++c) {
        const unsigned byte = qs[c][x];
        lo[c] = t[c][byte & 0x0F];
        if (hi_in) hi[c] = t[c][byte >> 4];
      }
    }
  }
}

void pack_q8_panel(const BlockQuantized& w, std::int64_t j0, int count, std::int64_t k0, std::int64_t kc,
                   float* panel) {
  const std::int64_t b0 = k0 / kQuantBlock, nb = (kc + kQuantBlock - 1) / kQuantBlock;
  const auto d = block_scales(w, j0, count, b0, nb);
  std::vector<float> col(static_cast<std::size_t>(nb * kQuantBlock));
  for (int c = 0; c < count; ++c) {
    for (std::int64_t b = 0; b < nb; ++b) {
      const auto* qs = reinterpret_cast<const std::int8_t*>(w.block(j0 + c, b0 + b) + 2);
      for (int x = 0; x < kQuantBlock; ++x) col[b * kQuantBlock + x] = d[c * nb + b] * static_cast<float>(qs[x]);
    }
    round_through_half(col.data(), col.size());
    for (std::int64_t kk = 0; kk < kc; ++kk) panel[kk * kGemmNr + c] = col[kk];
  }
}

void BlockRight::pack(float* dst, std::int64_t k0, std::int64_t kc, std::int64_t j0, std::int64_t nc) const {
  if (k0 % kQuantBlock != 0) throw std::logic_error("block-quantized weights packed from mid-block");
  for (std::int64_t c0 = 0; c0 < nc; c0 += kGemmNr) {
    float* panel = dst + (c0 / kGemmNr) * kc * kGemmNr;
    const int count = static_cast<int>(std::min<std::int64_t>(kGemmNr, nc - c0));
    if (count < kGemmNr) std::fill(panel, panel + kc * kGemmNr, 0.0f);
    if (w_.format == BlockFormat::kQ4_0) {
      pack_q4_panel(w_, j0 + c0, count, k0, kc, panel);
    } else {
      pack_q8_panel(w_, j0 + c0, count, k0, kc, panel);
    }
  }
}

}  // namespace

Tensor gemm_w4a16(const Tensor& a, const BlockQuantized& w, unsigned threads) {
  if (a.rank() == 2 && a.dim(0) <= kW4A16FusedMaxRows && w4a16_fused_available()) return gemm_w4a16_fused(a, w, threads);
  return gemm_w4a16_packed(a, w, threads);
}

void require_w4a16_operands(const Tensor& a, const BlockQuantized& w) {
  require_matrix(a, ElemType::kF16, "W4A16 activations");
  if (a.dim(1) != w.cols) {
    throw std::invalid_argument("W4A16 inner extents differ: A has k = " + std::to_string(a.dim(1)) +
                                ", the weights k = " + std::to_string(w.cols));
  }
}

Tensor gemm_w4a16_packed(const Tensor& a, const BlockQuantized& w, unsigned threads) {
  require_w4a16_operands(a, w);
  const GemmDims d{a.dim(0), a.dim(1), w.rows};
  Tensor c = Tensor::matrix(d.m, d.n, ElemType::kF16);
  using Sink = HalfOutputSink<RowMajorHalfWriter>;
  std::vector<float> scratch(Sink::scratch_size(d, kGemmKc));
  const RowMajorLeft<half> left(a.data<half>().data(), d.k);
  run_packed_gemm(d, left, BlockRight(w), Sink(d, kGemmKc, scratch.data(), RowMajorHalfWriter{c.data<half>().data(), d.n}),
                  kGemmKc, threads);
  return c;
}

}  // namespace socsim::kernels
