#include "kernels/attention/flash_lower.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/elementwise/hvx_mix.h"
#include "kernels/elementwise/op_costs.h"
#include "kernels/softmax/softmax_lower.h"
#include "sim/core/host_memory.h"
#include "sim/core/time.h"
#include "sim/hw/hardware_limit_error.h"

namespace socsim::kernels {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::uint64_t lut_bytes(const FlashParams& p) { return p.exp == ExpVariant::kLut ? LutExpTable::bytes() : 0; }

// TCM bytes of an FP16 HMX GEMM's operands padded to tiles, as gemm_plan.h lays them out.
std::uint64_t gemm_tcm_bytes(const hw::NpuSpec& npu, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
  const std::uint64_t R = npu.hmx.tile_rows, D = npu.hmx.fp16_tile_depth;
  const std::uint64_t mt = ceil_div(m, R), kt = ceil_div(k, D), nt = ceil_div(n, R);
  const std::uint64_t tb = R * D * 2, ob = R * R * 2;
  return mt * kt * tb + kt * nt * tb + mt * nt * ob;
}

std::uint64_t spare_tcm(const hw::NpuSpec& npu, const FlashParams& p) {
  return npu.tcm_bytes > lut_bytes(p) ? npu.tcm_bytes - lut_bytes(p) : 0;
}

// Tiles per (head, query block), and the work totals the CPU/GPU faces need.
struct TileCounts {
  double scores = 0, row_tiles = 0, rows = 0;
};

TileCounts tile_counts(const AttentionShape& s, const FlashParams& p) {
  TileCounts c;
  for (std::uint64_t i0 = 0; i0 < s.q_len; i0 += p.q_block) {
    const std::uint64_t r = std::min<std::uint64_t>(p.q_block, s.q_len - i0);
    const std::uint64_t tiles = ceil_div(s.visible(i0 + r - 1), p.kv_tile);
    c.scores += static_cast<double>(r * tiles * p.kv_tile);
    c.row_tiles += static_cast<double>(r * tiles);
    c.rows += static_cast<double>(r);
  }
  const auto heads = static_cast<double>(s.heads);
  return {c.scores * heads, c.row_tiles * heads, c.rows * heads};
}

}  // namespace

double flash_tile_hvx_packets(const hw::HvxSpec& hvx, std::uint64_t rows, std::uint64_t kv_tile, std::uint64_t head_dim, ExpVariant v) {
  const HvxCost c{hvx};
  const std::uint64_t seg = std::min<std::uint64_t>(kv_tile, c.lanes(2));
  const double lg = static_cast<double>(std::bit_width(seg) - 1);
  // Per score vector: segmented row max (rotate + max per halving), broadcast m', S - m', exp,
  // FP32 row sum (widen + 2 adds), rescale (2 multiplies), the FP16 P tile shuffled into the HMX
  // layout and stored (the paper's kernel: vshuff + store).
  HvxMix score{.va = lg + 1, .vs = 1 + 2, .vx_dv = 1 + 2, .vp = lg, .vp_vs = 1, .loads = 1, .stores = 1};
  if (v == ExpVariant::kPoly) score.vs += 1;  // its qf16 result to FP16
  if (v == ExpVariant::kLut) score.stores -= 1;  // the gather's .new store leaves P in TCM
  score = score + hvx_exp_mix_f16(v);
  // Per row vector: m' = max(m, rowmax), m - m', exp for a. Per output vector: broadcast a, a O, + P V.
  const HvxMix row = HvxMix{.va = 1, .vs = 1} + hvx_exp_mix_f16(v);
  const HvxMix out{.va = 1, .vs = 1, .vx_dv = 1, .loads = 1, .stores = 1};
  return static_cast<double>(c.vectors(rows * kv_tile, 2)) * vliw_packets(score, hvx) +
         static_cast<double>(c.vectors(rows, 2)) * vliw_packets(row, hvx) +
         static_cast<double>(c.vectors(rows * head_dim, 2)) * vliw_packets(out, hvx);
}

double flash_finalize_hvx_packets(const hw::HvxSpec& hvx, std::uint64_t rows, std::uint64_t head_dim) {
  const HvxCost c{hvx};
  // Per row: combine and reduce the FP32 sum (1 add, 5 rotate + add); per row vector the
  // reciprocal; per output vector broadcast 1/l and scale.
  const HvxMix per_row{.vs = 1 + 5, .vp = 5};
  const HvxMix reciprocal{.va = 1, .vs = 2 + 1, .vx_dv = 4};
  const HvxMix out{.va = 1, .vx_dv = 1, .loads = 1, .stores = 1};
  return static_cast<double>(rows) * vliw_packets(per_row, hvx) + static_cast<double>(c.vectors(rows, 2)) * vliw_packets(reciprocal, hvx) +
         static_cast<double>(c.vectors(rows * head_dim, 2)) * vliw_packets(out, hvx);
}

std::uint64_t flash_chunk_tiles(const hw::NpuSpec& npu, std::uint64_t rows, std::uint64_t head_dim, const FlashParams& p) {
  const std::uint64_t budget = spare_tcm(npu, p) / 4;
  auto fits = [&](std::uint64_t g) {
    const std::uint64_t keys = g * p.kv_tile;
    return gemm_tcm_bytes(npu, rows, head_dim, keys) <= budget && gemm_tcm_bytes(npu, rows, keys, head_dim) <= budget;
  };
  if (!fits(1)) {
    throw hw::HardwareLimitError("npu.tcm", "FlashAttention: one tile's operands do not fit a quarter of the " + std::to_string(spare_tcm(npu, p)) +
                                " B of TCM beside the LUT");
  }
  // The most tiles that fit (fits() only turns false as g grows), found by doubling then
  // bisecting: counting up one tile at a time ran for hours on a what-if TCM of an EiB. At most
  // 2^32 keys per chunk (no attention has more; it keeps the byte counts inside 64 bits).
  const std::uint64_t most = std::max<std::uint64_t>(1, (std::uint64_t{1} << 32) / std::max<std::uint64_t>(1, p.kv_tile));
  std::uint64_t lo = 1, hi = 2;  // fits(lo); hi is the first not known to fit
  while (hi <= most && fits(hi)) lo = hi, hi *= 2;
  hi = std::min(hi, most + 1);
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

namespace {

// The kernel's steps in order, each handed to `emit` as it is made: materialized by
// lower_flash_attention_npu, streamed by for_each_flash_attention_npu_step. `before_steps` is told
// how many steps there will be (and their name bytes) before the first is made.
template <class BeforeSteps, class Emit>
void flash_npu_steps(const hw::NpuSpec& npu, const AttentionShape& s, const FlashParams& p, std::uint32_t threads, hw::OperandHome home,
                     BeforeSteps&& before_steps, Emit&& emit) {
  validate_flash_params(p);
  s.validate();
  const bool dram = home == hw::OperandHome::kDram;
  const std::uint64_t d = s.head_dim, Bc = p.kv_tile;
  const std::uint64_t kv_head_bytes = s.keys_used() * d * 2 * 2;
  const bool kv_resident = kv_head_bytes <= spare_tcm(npu, p) / 2;
  // What depends only on a query block's rows: q_block for all but perhaps the last block. Worked
  // out once per rows value, not per head and block (the chunk search was a sixth of a run).
  struct PerRows {
    std::uint64_t rows = 0, chunk = 0;
    double tile_packets = 0;
    std::uint32_t hvx_t = 0;
  };
  PerRows per_rows[2];
  auto rows_costs = [&](std::uint64_t r) -> const PerRows& {
    for (auto& e : per_rows) {
      if (e.rows == r) return e;
    }
    PerRows& e = per_rows[per_rows[0].rows == 0 ? 0 : 1];
    e = {r, flash_chunk_tiles(npu, r, d, p), flash_tile_hvx_packets(npu.hvx, r, Bc, d, p.exp), hvx_threads(npu, threads, r)};
    return e;
  };
  std::uint64_t head_iterations = 0;
  for (std::uint64_t i0 = 0; i0 < s.q_len; i0 += p.q_block) {
    const std::uint64_t r = std::min<std::uint64_t>(p.q_block, s.q_len - i0);
    head_iterations += ceil_div(ceil_div(s.visible(i0 + r - 1), Bc), rows_costs(r).chunk);
  }
  // Iterations are counted in 32 bits (NpuStep::iteration); checked before the products below,
  // which then stay far inside 64 bits.
  if (head_iterations > std::numeric_limits<std::uint32_t>::max() / std::max<std::uint64_t>(s.heads, 1)) {
    throw TimeOverflow("FlashAttention on the NPU: " + std::to_string(s.heads) + " heads x " + std::to_string(head_iterations) +
                       " pipeline iterations (query blocks x key chunks), more than a kernel counts (2^32)");
  }
  const std::string softmax_name = std::string("flash.softmax.") + exp_variant_name(p.exp);
  const std::uint64_t iterations = head_iterations * s.heads;
  const std::uint64_t steps = iterations * (dram && !kv_resident ? 4 : 3) + (dram ? 3 * s.heads : 0);
  const std::uint64_t name_bytes = softmax_name.size() > 15 ? softmax_name.size() + 1 : 0;
  before_steps(steps, iterations * name_bytes);
  std::uint32_t it = 0;  // one iteration per (head, query block, chunk of key tiles)
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    for (std::uint64_t i0 = 0; i0 < s.q_len; i0 += p.q_block) {
      const std::uint64_t r = std::min<std::uint64_t>(p.q_block, s.q_len - i0);
      const std::uint64_t tiles = ceil_div(s.visible(i0 + r - 1), Bc);
      const PerRows& pr = rows_costs(r);
      const std::uint64_t chunk = pr.chunk;
      const double tile_packets = pr.tile_packets;
      const std::uint32_t hvx_t = pr.hvx_t;
      for (std::uint64_t t0 = 0; t0 < tiles; t0 += chunk, ++it) {
        const std::uint64_t g = std::min(chunk, tiles - t0);
        const bool first_of_head = i0 == 0 && t0 == 0;
        const bool last = t0 + g == tiles;
        if (dram && first_of_head) {
          emit(NpuStep::dma("flash.q", s.q_len * d * 2, 1).at(it, 0));
          if (kv_resident && h % s.group() == 0) emit(NpuStep::dma("flash.kv", kv_head_bytes, 2).at(it, 0));
        }
        if (dram && !kv_resident) emit(NpuStep::dma("flash.kv", g * Bc * d * 2 * 2, 2).at(it, 0));
        emit(NpuStep::hmx_gemm("flash.qk", {r, d, g * Bc, hw::DType::kFp16}, hw::OperandHome::kTcm).at(it, 1));
        const double packets = static_cast<double>(g) * tile_packets + (last ? flash_finalize_hvx_packets(npu.hvx, r, d) : 0.0);
        emit(NpuStep::hvx(softmax_name, packets, hvx_t).at(it, 2));
        emit(NpuStep::hmx_gemm("flash.pv", {r, g * Bc, d, hw::DType::kFp16}, hw::OperandHome::kTcm).at(it, 3));
        if (dram && last && i0 + r >= s.q_len) emit(NpuStep::dma("flash.o", s.q_len * d * 2, 1).at(it, 3));
      }
    }
  }
}

}  // namespace

NpuWork lower_flash_attention_npu(const hw::NpuSpec& npu, const AttentionShape& s, const FlashParams& p, std::uint32_t threads,
                                  hw::OperandHome home) {
  NpuWork w;
  w.stages = {{"load", 2}, {"scores", 2}, {"softmax", 2}, {"context", 0}};
  // The steps this work will hold, counted before any is made: the host memory guard
  // (--max-host-memory) refuses a shape too large for the limit before allocating it (a long
  // prompt's kernel holds hundreds of MiB), and the list is allocated once (grown by doubling it
  // held one and a half lists at a time, past the limit between two checks).
  flash_npu_steps(
      npu, s, p, threads, home,
      [&w](std::uint64_t steps, std::uint64_t name_bytes) {
        check_host_memory_for(steps * sizeof(NpuStep) + name_bytes);
        w.steps.reserve(steps);
      },
      [&w](NpuStep&& step) { w.steps.push_back(std::move(step)); });
  return w;
}

void for_each_flash_attention_npu_step(const hw::NpuSpec& npu, const AttentionShape& s, const FlashParams& p, std::uint32_t threads,
                                       hw::OperandHome home, const std::function<void(NpuStep&&)>& emit) {
  flash_npu_steps(npu, s, p, threads, home, [](std::uint64_t, std::uint64_t) {}, emit);
}

namespace {

double flash_ops(const AttentionShape& s, const FlashParams& p, double exp_ops) {
  const TileCounts c = tile_counts(s, p);
  const auto d = static_cast<double>(s.head_dim);
  return c.scores * (4 * d + 3 + exp_ops) + c.row_tiles * (2 * d + 2 + exp_ops) + c.rows * (d + 1);
}

std::uint64_t flash_bytes(const AttentionShape& s) {
  return s.heads * s.q_len * s.head_dim * 2 * 2 + s.heads * s.keys_used() * s.head_dim * 2 * 2;
}

}  // namespace

CpuWork lower_flash_attention_cpu(const AttentionShape& s, const FlashParams& p, std::uint32_t threads) {
  validate_flash_params(p);
  s.validate();
  hw::CpuTask t;
  t.name = "flash_attention";
  t.ops = flash_ops(s, p, cpu_exp_ops(p.exp));
  t.dtype = hw::DType::kFp16;
  t.dram_bytes = flash_bytes(s);
  t.rows = s.q_len;
  return CpuWork{{t}, std::max<std::uint32_t>(1, threads)};
}

GpuWork lower_flash_attention_gpu(const AttentionShape& s, const FlashParams& p) {
  validate_flash_params(p);
  s.validate();
  hw::GpuKernel k;
  k.name = "flash_attention";
  k.flops = flash_ops(s, p, gpu_exp_ops(p.exp));
  k.dtype = hw::DType::kFp16;
  k.dram_bytes = flash_bytes(s);
  k.rows = s.heads * s.q_len;
  return GpuWork{{k}};
}

}  // namespace socsim::kernels
