#pragma once
// `lower` faces of the GEMM kernels for the Hexagon NPU (HVX packet counts: hvx_costs.h).
#include <cstdint>

#include "kernels/gemm/dequant_layout.h"
#include "kernels/gemm/gemm_dims.h"
#include "kernels/lowering/work.h"
#include "kernels/quant/block_quant.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

// The static-graph faces below take `width`, the activation tensor's width in the graph's
// layout (hw::GemmShape::width: 0 = packed rows; graph_activation_layout.h chooses it).

// W8A8 per-tensor through the vendor runtime: a one-node static graph, then the HMX INT8 GEMM
// (dequantization rides on HMX's per-column output scaling).
NpuWork lower_gemm_i8_npu(const GemmDims& d, hw::OperandHome home = hw::OperandHome::kDram, std::uint64_t width = 0);

// Per-group INT8 the only way a static graph can express it (llm.npu 2.3): per group g of
// G = ceil(k / group) groups, a slice of the activations (a strided view: a node, no HVX work), an
// INT8 sub-GEMM [m x group] x [group x n], a node converting its INT32 result to float with the
// group's column scales (the calibrated activation scale folded in offline), and from the second
// group on a node adding it to the running sum: 4 G - 1 nodes in one graph call. Then per group
// the HMX sub-GEMM and the HVX reduction over ceil(m n / (vector_bytes / 4)) vectors
// (hvx::group_reduce_packets), on all HVX contexts. The node dispatches dominate at small groups
// (8 Gen 3 values, 64x2048x2048: G = 32 / 64 / 128 -> about 17x / 9x / 5x the per-tensor time,
// around llm.npu's 8.1-10.7x). Approximation: the sub-GEMM plans drain INT8-sized output tiles,
// so the INT32 partials' extra traffic is not counted.
NpuWork lower_gemm_i8_per_group_npu(const GemmDims& d, std::int64_t group, const hw::NpuSpec& spec,
                                    hw::OperandHome home = hw::OperandHome::kDram, std::uint64_t width = 0);

// Whether operands already are in the HMX tile layout; row-major ones are shuffled on HVX.
struct HmxOperandLayout {
  bool activations_tiled = false;
  bool outputs_tiled = false;
};

// FP16 GEMM on HMX as a custom kernel (TTS: no static graph): tile the activations on HVX
// (hvx::tile_shuffle_packets per activation tile), the HMX FP16 GEMM, untile the outputs.
NpuWork lower_gemm_f16_hmx_npu(const GemmDims& d, const hw::NpuSpec& spec, HmxOperandLayout layout = {},
                               hw::OperandHome home = hw::OperandHome::kDram);

// W4A16 matmul in a static graph of the vendor runtime (HeteroLLM's NPU path: QNN graphs with
// per-channel INT4 weights, FP16 activations). Reconstruction (README): the runtime stages each
// weight tile as its own DMA transfer like any static weight (gemm_plan.h), widens its INT4 codes
// to FP16 on HVX into the tile buffer (vlut16 nibble -> FP16, no groups: the per-channel scale is
// applied to the outputs, one vmpy per output vector), and HMX multiplies in FP16. One graph call.
// DMA stages the INT4 codes (kW4a16GraphWeightBits: a quarter of an FP16 tile's bytes, in the same
// transfers); the TCM budget holds the widened FP16 tiles (the codes are widened into the tile's
// own buffer, from its upper end: a 512 B block under a 2 KiB tile needs no second buffer).
inline constexpr std::uint32_t kW4a16GraphWeightBits = 4;
NpuWork lower_gemm_w4a16_graph_npu(const GemmDims& d, const hw::NpuSpec& spec, hw::OperandHome home = hw::OperandHome::kDram,
                                   std::uint64_t width = 0);

struct W4A16NpuOptions {
  DequantLayout dequant = DequantLayout::kCoalesced;  // TTS's kernel; the others are its ablation
  // Double buffering (TTS's kernel; the TCM budget below leaves room for it): every stage's output
  // rotates through two TCM buffers, so the next chunk's weights are DMA'd while HVX dequantizes
  // this one and HMX multiplies the previous one. false: one buffer per stage (a stage waits for
  // the next to consume its output before it produces more).
  bool prefetch_weights = false;
  HmxOperandLayout layout;
};

// W4A16 (Q4_0) or W8A16 (Q8_0) as TTS runs it: the quantized weights stream through TCM, HVX
// dequantizes them there into FP16 tiles, HMX multiplies them with operands in TCM. The working
// set gets half the TCM (the other half is the next chunk's double buffer): a row block's
// activations (mb kt tiles) and, per tile column of a chunk, its FP16 tiles, quantized bytes and
// output tiles (tile = 2 KiB FP16 tile, mt, kt, nt = tiles per dim). Row blocks of mb tile rows
// and column chunks of nb tile columns: of the sizes that depend on the shape only (powers of two
// and every even split of mt or nt) and fit, the kernel takes the pair its pipeline is estimated
// fastest with on an idle NPU, as its author tunes it: the first chunk's stages back to back (the
// fill, paid once), then one chunk per period, the longest of each engine's work per chunk (DMA:
// weights in, outputs out; HVX: dequantize, untile; HMX), each stage's, each two adjacent
// stages' over the buffers between them, and HVX plus HMX when their threads cannot all run at
// once; the larger pair on a tie. Filling the TCM is not the fastest (one chunk leaves the
// pipeline nothing to overlap). The pairs that fit a TCM fit every bigger one, so more TCM never
// makes the estimate worse; the simulated time follows it within the estimate's error (FIFO
// engines shared by two stages queue in ways it does not see: up to 2% on most shapes, more at a
// few TCM sizes, README). Double-buffered, the load stage gets a third buffer and the multiply
// stage a ring of chunk outputs as deep as the working set has room for (buffers 0: every output
// stays in TCM until stored).
// A software pipeline (NpuWork::stages) with one iteration per (row block, column chunk):
//   load        DMA the row block's activations in (its first chunk, one transfer) and the
//               chunk's quantized weights (one transfer per 32-column strip)
//   dequantize  tile the activations on HVX (first chunk, unless already tiled); dequantize every
//               weight of the chunk's whole tiles (dequant_packets_per_unit of options.dequant)
//   multiply    the HMX GEMM on TCM operands
//   store       untile the outputs on HVX (unless tiled), DMA them out (one transfer)
// With prefetch_weights, load / dequantize / multiply each have two buffers or more (above): DMA
// of chunk i + 1, HVX on chunk i and HMX on chunk i - 1 overlap; without, one each.
NpuWork lower_gemm_w4a16_npu(const GemmDims& d, BlockFormat f, const hw::NpuSpec& spec, W4A16NpuOptions options = {});

}  // namespace socsim::kernels
