// lower_gemm_w4a16_npu (declared in gemm_lower_npu.h): TCM chunking of TTS's W4A16 kernel.
#include <algorithm>
#include <stdexcept>

#include "kernels/gemm/gemm_lower_npu.h"
#include "kernels/gemm/hvx_costs.h"

namespace socsim::kernels {

namespace {

std::uint64_t u64(std::int64_t v) { return static_cast<std::uint64_t>(v); }
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

struct Chunking {
  std::uint64_t mt, kt, nt;  // tiles per dimension
  std::uint64_t mb, nb;      // tile rows per row block, tile columns per column chunk
};

Chunking chunking(const GemmDims& d, BlockFormat f, const hw::NpuSpec& spec) {
  const std::uint64_t rows = spec.hmx.tile_rows, depth = spec.hmx.fp16_tile_depth;
  const std::uint64_t tile = rows * depth * 2, out_tile = rows * rows * 2;
  Chunking c{ceil_div(u64(d.m), rows), ceil_div(u64(d.k), depth), ceil_div(u64(d.n), rows), 1, 1};
  const std::uint64_t budget = spec.tcm_bytes / 2;
  c.mb = std::clamp<std::uint64_t>(budget / 2 / (c.kt * tile), 1, c.mt);
  const std::uint64_t a_bytes = c.mb * c.kt * tile;
  const std::uint64_t q_col = rows * ceil_div(u64(d.k), kQuantBlock) * u64(block_bytes(f));
  const std::uint64_t per_col = c.kt * tile + q_col + c.mb * out_tile;
  c.nb = a_bytes >= budget ? 1 : std::clamp<std::uint64_t>((budget - a_bytes) / per_col, 1, c.nt);
  return c;
}

}  // namespace

NpuWork lower_gemm_w4a16_npu(const GemmDims& d, BlockFormat f, const hw::NpuSpec& spec, W4A16NpuOptions options) {
  if (d.m <= 0 || d.k <= 0 || d.n <= 0) throw std::invalid_argument("NPU GEMM with an empty dimension");
  const Chunking c = chunking(d, f, spec);
  const std::uint64_t rows = spec.hmx.tile_rows, depth = spec.hmx.fp16_tile_depth;
  const std::uint64_t blocks_per_col = ceil_div(u64(d.k), kQuantBlock);
  const double shuffle = hvx::tile_shuffle_packets(spec.hvx);
  const double per_unit = hvx::dequant_packets_per_unit(spec.hvx, f, options.dequant);
  const auto threads = spec.hvx.contexts;
  const std::uint32_t buffers = options.prefetch_weights ? 2 : 1;
  NpuWork w;
  w.stages = {{"load", buffers}, {"dequantize", buffers}, {"multiply", buffers}, {"store", 0}};
  std::uint32_t it = 0;  // one iteration per (row block, column chunk)
  for (std::uint64_t r0 = 0; r0 < c.mt; r0 += c.mb) {
    const std::uint64_t tiles_r = std::min(c.mb, c.mt - r0);
    const std::uint64_t m_here = std::min(u64(d.m) - r0 * rows, tiles_r * rows);
    for (std::uint64_t c0 = 0; c0 < c.nt; c0 += c.nb, ++it) {
      const std::uint64_t tiles_c = std::min(c.nb, c.nt - c0);
      const std::uint64_t n_here = std::min(u64(d.n) - c0 * rows, tiles_c * rows);
      const double units = static_cast<double>(tiles_c * c.kt * rows * depth) / hvx::weights_per_unit(spec.hvx);
      if (c0 == 0) w.steps.push_back(NpuStep::dma("w4a16 activations in", m_here * u64(d.k) * 2, 1).at(it, 0));
      // Quantized weights: one DMA transfer per 32-column strip.
      w.steps.push_back(NpuStep::dma("w4a16 weights in", n_here * blocks_per_col * u64(block_bytes(f)), tiles_c).at(it, 0));
      if (c0 == 0 && !options.layout.activations_tiled) {
        w.steps.push_back(NpuStep::hvx("w4a16 tile activations", static_cast<double>(tiles_r * c.kt) * shuffle, threads).at(it, 1));
      }
      w.steps.push_back(NpuStep::hvx("w4a16 dequantize", units * per_unit, threads).at(it, 1));
      w.steps.push_back(
          NpuStep::hmx_gemm("w4a16 hmx", {m_here, u64(d.k), n_here, hw::DType::kFp16}, hw::OperandHome::kTcm).at(it, 2));
      if (!options.layout.outputs_tiled) {
        w.steps.push_back(NpuStep::hvx("w4a16 untile outputs", static_cast<double>(tiles_r * tiles_c) * shuffle, threads).at(it, 3));
      }
      w.steps.push_back(NpuStep::dma("w4a16 outputs out", m_here * n_here * 2, 1).at(it, 3));
    }
  }
  return w;
}

}  // namespace socsim::kernels
