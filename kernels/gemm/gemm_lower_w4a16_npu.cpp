// lower_gemm_w4a16_npu (declared in gemm_lower_npu.h): TCM chunking of TTS's W4A16 kernel.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/gemm/gemm_lower_npu.h"
#include "kernels/gemm/hvx_costs.h"
#include "sim/hw/npu/gemm_plan.h"

namespace socsim::kernels {

namespace {

std::uint64_t u64(std::int64_t v) { return static_cast<std::uint64_t>(v); }
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

struct Chunking {
  std::uint64_t mt, kt, nt;  // tiles per dimension
  std::uint64_t mb, nb;      // tile rows per row block, tile columns per column chunk
  // Output buffers of the multiply stage (a ring of chunk outputs in TCM); 0: every output of the
  // GEMM stays in TCM until stored, the multiply stage never waits for the store.
  std::uint64_t out_buffers = 0;
  // Buffers of the load stage (quantized weights): a third when the working set has room for it.
  std::uint32_t load_buffers = 1;
  // HVX threads of the vector stages: every context, or (double-buffered) one fewer so that HMX
  // has a hardware thread beside them, whichever is estimated faster (8 Elite: 6 threads, 6
  // contexts; on all 6 HVX and HMX took turns, 1.4x the time of a 128-row GEMM).
  std::uint32_t workers = 1;
};

// Idle seconds of one iteration's stages for a chunk of `tiles_c` column tiles of a row block of
// `tiles_r` tile rows (`m_here` real rows), as lower_gemm_w4a16_npu emits its steps: load (DMA of
// the weights; the row block's activations on its first chunk), dequantize (HVX on all contexts;
// tiling the activations on the first chunk), multiply (HMX) and store (HVX untile, DMA out).
struct StageSeconds {
  double load = 0, dequantize = 0, multiply = 0, store_hvx = 0, store_dma = 0;
  double store() const { return store_hvx + store_dma; }
  double sum() const { return load + dequantize + multiply + store(); }
  // One chunk per period at best: no engine does more than a period's work (DMA and HVX each
  // serve two stages), no stage either (the store untiles, then sends), and a stage's buffer
  // comes back only when the next stage is done with it: with b buffers, b periods hold both
  // stages' work of a chunk (multiply and store: none when every output stays in TCM).
  // `shared_threads`: HVX on every context and HMX cannot both have a hardware thread, so they
  // take turns.
  double period(std::uint32_t load_buffers, std::uint32_t buffers, std::uint64_t out_buffers, bool shared_threads) const {
    const double b = buffers;
    return std::max({load + store_dma, dequantize + store_hvx, multiply, store(), (load + dequantize) / load_buffers, (dequantize + multiply) / b,
                     out_buffers == 0 ? 0.0 : (multiply + store()) / static_cast<double>(out_buffers),
                     shared_threads ? dequantize + store_hvx + multiply : 0.0});
  }
};

StageSeconds chunk_seconds(const GemmDims& d, BlockFormat f, const hw::NpuSpec& spec, const W4A16NpuOptions& options, std::uint32_t workers,
                           std::uint64_t tiles_r, std::uint64_t m_here, std::uint64_t tiles_c, std::uint64_t kt, bool first) {
  const std::uint64_t rows = spec.hmx.tile_rows, depth = spec.hmx.fp16_tile_depth;
  const std::uint64_t n_here = std::min(u64(d.n), tiles_c * rows);
  const double hvx_rate = static_cast<double>(workers) * spec.hvx.packets_per_cycle *
                          static_cast<double>(spec.clock_hz);
  const double shuffle = hvx::tile_shuffle_packets(spec.hvx);
  StageSeconds s;
  s.load = hw::idle_dma_seconds(spec, n_here * ceil_div(u64(d.k), kQuantBlock) * u64(block_bytes(f)), tiles_c);
  if (first) s.load += hw::idle_dma_seconds(spec, m_here * u64(d.k) * 2, 1);
  const double units = static_cast<double>(tiles_c * kt * rows * depth) / hvx::weights_per_unit(spec.hvx);
  double packets = units * hvx::dequant_packets_per_unit(spec.hvx, f, options.dequant);
  if (first && !options.layout.activations_tiled) packets += static_cast<double>(tiles_r * kt) * shuffle;
  s.dequantize = packets / hvx_rate;
  const auto gemm = hw::plan_hmx_gemm_summary(spec, {m_here, u64(d.k), n_here, hw::DType::kFp16}, hw::OperandHome::kTcm);
  s.multiply = static_cast<double>(gemm.total.hmx_cycles) / static_cast<double>(spec.clock_hz);
  if (!options.layout.outputs_tiled) s.store_hvx = static_cast<double>(tiles_r * tiles_c) * shuffle / hvx_rate;
  s.store_dma = hw::idle_dma_seconds(spec, m_here * n_here * 2, 1);
  return s;
}

// Estimated idle seconds of the whole GEMM with chunks of `nb` tile columns and row blocks of
// `mb` tile rows: the first chunk's stages one after another (the pipeline's fill), then one
// chunk per period (each row block's first chunk with its activations, its last, shorter chunk
// by its own); the iterations run on across row blocks, so the fill is paid once.
double gemm_seconds(const GemmDims& d, BlockFormat f, const hw::NpuSpec& spec, const W4A16NpuOptions& options, const Chunking& c,
                    std::uint64_t nb) {
  const std::uint64_t ob = c.out_buffers;
  const std::uint32_t buffers = options.prefetch_weights ? 2 : 1;
  const std::uint64_t rows = spec.hmx.tile_rows;
  const std::uint64_t full = c.nt / nb, rest = c.nt % nb;
  const bool shared = c.workers + spec.hmx.units > spec.scalar_threads;
  double total = 0;
  bool filled = false;
  // Row blocks of mb tile rows, then the remainder (fewer tiles, or fewer real rows).
  const auto row_blocks = [&](std::uint64_t count, std::uint64_t tiles_r, std::uint64_t m_here) {
    if (count == 0) return;
    const auto chunk = [&](std::uint64_t tiles_c, bool first) { return chunk_seconds(d, f, spec, options, c.workers, tiles_r, m_here, tiles_c, c.kt, first); };
    const double n = static_cast<double>(count);
    const StageSeconds head = chunk(full > 0 ? nb : rest, true);
    if (!filled) {
      total += head.sum() + (n - 1) * head.period(c.load_buffers, buffers, ob, shared);
      filled = true;
    } else {
      total += n * head.period(c.load_buffers, buffers, ob, shared);
    }
    if (full > 1) total += n * static_cast<double>(full - 1) * chunk(nb, false).period(c.load_buffers, buffers, ob, shared);
    if (full > 0 && rest > 0) total += n * chunk(rest, false).period(c.load_buffers, buffers, ob, shared);
  };
  const std::uint64_t blocks = c.mt / c.mb, rest_tiles = c.mt % c.mb;
  const std::uint64_t block_rows = c.mb * rows;
  if (rest_tiles == 0) {
    // The last block may hold fewer real rows than its tiles.
    row_blocks(blocks - 1, c.mb, block_rows);
    row_blocks(1, c.mb, u64(d.m) - (blocks - 1) * block_rows);
  } else {
    row_blocks(blocks, c.mb, block_rows);
    row_blocks(1, rest_tiles, u64(d.m) - blocks * block_rows);
  }
  return total;
}

// Block sizes that depend on the dimension only, ascending: powers of two below `tiles`, and
// every size that splits it evenly into j blocks (ceil(tiles / j), j = tiles .. 1: about
// 2 sqrt(tiles) distinct ones).
std::vector<std::uint64_t> block_sizes(std::uint64_t tiles) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b = 1; b < tiles; b *= 2) sizes.push_back(b);
  for (std::uint64_t j = tiles; j >= 1; --j) {
    const std::uint64_t b = ceil_div(tiles, j);
    j = ceil_div(tiles, b);  // the fewest blocks of this size: skip the j with the same size
    sizes.push_back(b);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

Chunking chunking(const GemmDims& d, BlockFormat f, const hw::NpuSpec& spec, const W4A16NpuOptions& options) {
  const std::uint64_t rows = spec.hmx.tile_rows, depth = spec.hmx.fp16_tile_depth;
  const std::uint64_t tile = rows * depth * 2, out_tile = rows * rows * 2;
  Chunking c{ceil_div(u64(d.m), rows), ceil_div(u64(d.k), depth), ceil_div(u64(d.n), rows), 1, 1};
  // The working set gets half the TCM (the other half: the next chunk's buffers). It holds a row
  // block's activations (mb kt tiles) and, per tile column of a chunk, its FP16 weight tiles, its
  // quantized bytes and its output tiles. Of the (row block, chunk) sizes that fit, the kernel
  // takes the pair estimated fastest (gemm_lower_npu.h); on a tie the larger (fewer steps). Filling
  // the TCM is not the fastest: at 64 MiB a decode GEMV ran its load, dequantization and multiply
  // back to back (2.2x its time at 1 MiB), and a prefill GEMM's row block of all its rows made its
  // pipeline's fill the activations of every row.
  const std::uint64_t budget = spec.tcm_bytes / 2;
  const std::uint64_t q_col = rows * ceil_div(u64(d.k), kQuantBlock) * u64(block_bytes(f));
  // The multiply stage's outputs go to a ring of chunk outputs as deep as the working set has
  // room for: with only the stage's two buffers, HMX waited for the store's HVX untiling and
  // output DMA, which queue behind the other stages' work on the same engines (a 16-row GEMV on
  // 8 Gen 2 ran 1.3x its busiest engine's time). When every output fits (a decode GEMV's few
  // rows), they all stay in TCM until stored.
  const std::vector<std::uint64_t> nb_sizes = block_sizes(c.nt);
  Chunking best = c;
  double best_t = -1;
  const std::uint32_t most = std::min(spec.hvx.contexts, spec.scalar_threads);
  std::vector<std::uint32_t> worker_counts = {most};
  if (options.prefetch_weights && most > 1 && most + spec.hmx.units > spec.scalar_threads) worker_counts.insert(worker_counts.begin(), most - 1);
  for (const std::uint32_t workers : worker_counts) {
    for (const std::uint64_t mb : block_sizes(c.mt)) {
      const std::uint64_t a_bytes = mb * c.kt * tile;
      const std::uint64_t per_col = c.kt * tile + q_col + mb * out_tile;
      Chunking cand = c;
      cand.mb = mb;
      cand.workers = workers;
      for (const std::uint64_t nb : nb_sizes) {
        // Ascending: once one does not fit, no bigger chunk does. One tile column of one tile row
        // runs whatever the TCM (the smallest working set there is).
        if (a_bytes + nb * per_col > budget && (mb > 1 || nb > 1)) break;
        cand.nb = nb;
        // Double-buffered (TTS's kernel): a third buffer of quantized weights (small beside their
        // FP16 tiles) when it fits: with two, a DMA engine and HVX both nearly saturated (each also
        // serving the store) left bubbles (a decode GEMV on 8 Gen 2 at 768 KiB ran 100 us against 81
        // with three). Then a ring of as many chunks' outputs as the rest holds (at least two;
        // every output when they all fit). Single-buffered: one buffer each.
        const std::uint64_t used = a_bytes + nb * (c.kt * tile + q_col);
        cand.load_buffers = !options.prefetch_weights ? 1 : used + nb * q_col <= budget ? 3 : 2;
        const std::uint64_t chunk_out = mb * nb * out_tile;
        const std::uint64_t rest = budget - std::min(budget, used + (cand.load_buffers == 3 ? nb * q_col : 0));
        const std::uint64_t chunks = ceil_div(c.mt, mb) * ceil_div(c.nt, nb);
        const std::uint64_t ring = options.prefetch_weights ? std::max<std::uint64_t>(rest / chunk_out, 2) : 1;
        cand.out_buffers = options.prefetch_weights && ring >= chunks ? 0 : std::min<std::uint64_t>(ring, UINT32_MAX);
        const double t = gemm_seconds(d, f, spec, options, cand, nb);
        if (best_t < 0 || t <= best_t) best_t = t, best = cand;
      }
    }
  }
  return best;
}

}  // namespace

NpuWork lower_gemm_w4a16_npu(const GemmDims& d, BlockFormat f, const hw::NpuSpec& spec, W4A16NpuOptions options) {
  if (d.m <= 0 || d.k <= 0 || d.n <= 0) throw std::invalid_argument("NPU GEMM with an empty dimension");
  const Chunking c = chunking(d, f, spec, options);
  const std::uint64_t rows = spec.hmx.tile_rows, depth = spec.hmx.fp16_tile_depth;
  const std::uint64_t blocks_per_col = ceil_div(u64(d.k), kQuantBlock);
  const double shuffle = hvx::tile_shuffle_packets(spec.hvx);
  const double per_unit = hvx::dequant_packets_per_unit(spec.hvx, f, options.dequant);
  const std::uint32_t threads = c.workers;
  const std::uint32_t buffers = options.prefetch_weights ? 2 : 1;
  NpuWork w;
  w.stages = {{"load", c.load_buffers}, {"dequantize", buffers}, {"multiply", static_cast<std::uint32_t>(c.out_buffers)}, {"store", 0}};
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
