#pragma once
// How an HMX GEMM C[m x n] = A[m x k] * W[k x n] is blocked for the TCM scratchpad. A pure
// function of the shape and the NPU's parameters, so it is unit-tested on its own and the
// timing model (hmx_gemm.h) only replays it.
//
// HMX is weight-stationary: a weight tile is loaded into the array once per pass over the
// activation tiles resident in TCM. Operands live in TCM only (HMX cannot read DRAM), so DMA
// stages them: static weights tile by tile (each tile is its own transfer, as the vendor runtime
// places them; the per-transfer set-up dominates), activations and outputs as large row blocks.
// Which operand stays resident follows from TCM capacity:
//   - all operands already in TCM (a kernel benchmark): compute only;
//   - activations fit in half the TCM: stage them once, stream weight columns through the rest;
//   - else weights fit in half the TCM: stage them once, stream activation row blocks (every block
//     reloads each weight tile into the array);
//   - else block the rows, each block as many row tiles as the activations-resident case holds (half
//     the TCM), and stream all weights per block.
// Order sensitivity (which operand is the weight), shape sensitivity and padding stages (every
// dimension rounded up to whole tiles) all follow from this.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "sim/hw/dtype.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::hw {

struct GemmShape {
  std::uint64_t m = 0, k = 0, n = 0;
  DType dtype = DType::kFp16;  // kInt8 (W8A8) or kFp16 on HMX
  // How the activations are stored. 0: rows packed straight into HMX tiles (a custom kernel that
  // tiles its own operands). w >= 1: a vendor-runtime tensor [m / w, w, k] in croutons
  // (NpuLayoutSpec), height and width each padded to whole croutons; the padding positions are
  // staged, multiplied and written back like real ones. m must be a multiple of w.
  std::uint64_t width = 0;
  // Bytes of each output element written back: 0 = the operands' type (INT8 requantized to 1, FP16
  // 2), 4 = the INT32 accumulators raw (shadowAttn's Q·Kᵀ estimation: its top-k ranks the raw
  // scores, which a requantization to 8 bits would tie).
  std::uint32_t out_bytes = 0;
  // Bits per weight element staged from DRAM: 0 = the operands' type; 4 = INT4 codes (W4A16: the
  // codes are DMA'd and widened to the operands' type in TCM by HVX before HMX loads them, so the
  // DMA moves a quarter of an FP16 tile's bytes while the TCM holds the widened tile).
  std::uint32_t weight_bits = 0;
  bool operator==(const GemmShape&) const = default;  // every field: a new one is compared too
  // Every field, for the caches keyed on a shape (HexagonNpu's plans, the alone-replay signature):
  // a new field joins here.
  auto key() const { return std::tuple{m, k, n, width, static_cast<int>(dtype), out_bytes, weight_bits}; }
};

// Activation rows the GEMM moves and multiplies: m, or m's crouton-padded positions (width >= 1).
// Throws std::invalid_argument when width does not divide m.
std::uint64_t stored_rows(const NpuSpec& npu, const GemmShape& shape);

enum class OperandHome { kDram, kTcm };

enum class GemmStrategy { kAllInTcm, kActivationsResident, kWeightsResident, kRowBlocked };
const char* strategy_name(GemmStrategy s);

// One step of the software pipeline: stage this block's inputs, compute on them, write outputs.
struct GemmBlock {
  std::uint64_t stage_bytes = 0;        // DRAM -> TCM
  std::uint64_t stage_transfers = 0;    // DMA transfers those bytes take (set-up cost each)
  std::uint64_t weight_loads = 0;       // weight tiles loaded into the array
  std::uint64_t tile_ops = 0;           // activation tile x weight tile products
  std::uint64_t output_tiles = 0;       // accumulator tiles drained to TCM
  std::uint64_t writeback_bytes = 0;    // TCM -> DRAM
  std::uint64_t hmx_cycles = 0;         // weight_loads, tile_ops and drains in HMX cycles
};

struct GemmPlan {
  GemmStrategy strategy = GemmStrategy::kAllInTcm;
  std::uint64_t mt = 0, kt = 0, nt = 0;  // tiles per dimension (padded)
  std::uint64_t tile_bytes = 0, output_tile_bytes = 0;
  std::vector<GemmBlock> blocks;         // in execution order
  GemmBlock total;                       // sums over blocks
  double useful_flops = 0;               // 2*m*k*n (without padding)
};

// Throws std::invalid_argument for empty shapes, unsupported dtypes, or operands that must sit in
// TCM but do not fit it (the message names the sizes). Memoized per thread (a pure function).
GemmPlan plan_hmx_gemm(const NpuSpec& npu, const GemmShape& shape, OperandHome home);
// What callers that do not run the plan read of it, without copying its blocks (memoized alike).
struct GemmPlanSummary {
  GemmStrategy strategy = GemmStrategy::kAllInTcm;
  GemmBlock total;
  std::size_t blocks = 0;
};
GemmPlanSummary plan_hmx_gemm_summary(const NpuSpec& npu, const GemmShape& shape, OperandHome home);
// The same without the memo (what the memo stores; tests compare the two).
GemmPlan compute_hmx_gemm_plan(const NpuSpec& npu, const GemmShape& shape, OperandHome home);
// compute_hmx_gemm_plan's strategy, total and block count, without making the blocks where they
// repeat (activations resident: every full column block alike); the same numbers.
GemmPlanSummary compute_hmx_gemm_summary(const NpuSpec& npu, const GemmShape& shape, OperandHome home);

// Seconds one DMA request of `bytes` in `transfers` takes on an otherwise idle NPU: set-up rounds
// (`channels` transfers at a time), then the bytes at the DMA path's rate.
double idle_dma_seconds(const NpuSpec& npu, std::uint64_t bytes, std::uint64_t transfers);

// The idle pipeline seconds of streaming the weights `cols` column tiles a block past all of the
// activations resident in TCM (the activations-resident strategy's candidates): as the planner
// computes it (the steady steps counted, not walked) or walking every block. Tests hold the two
// together.
double weight_stream_seconds(const NpuSpec& npu, const GemmShape& shape, std::uint64_t cols, bool walk_every_block);
// The idle time of the row-blocked plan with `rows` row tiles a block (1..tiles_m), its passes
// counted as compute_hmx_gemm_plan times them (walk_every_block: walked block by block, for the
// tests that the two agree).
double row_blocked_seconds(const NpuSpec& npu, const GemmShape& shape, std::uint64_t rows, bool walk_every_block);

// Seconds `plan` takes on an otherwise idle NPU: the software pipeline of run_hmx_gemm without
// DRAM contention (how a kernel author or a runtime's offline profiler compares candidates).
double idle_plan_seconds(const NpuSpec& npu, const GemmPlan& plan);
// The same for the memoized plan of a shape, without copying its blocks (a layout search tries
// every factorization of a chunk's rows: a copy of each candidate's plan cost more than timing it).
double idle_hmx_gemm_seconds(const NpuSpec& npu, const GemmShape& shape, OperandHome home);

}  // namespace socsim::hw
