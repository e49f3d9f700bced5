#include "sim/runtime/lowering/matmul_lowering.h"

#include "kernels/gemm/gemm_lower_npu.h"
#include "kernels/gemm/gemv_lower.h"
#include "kernels/gemm/gemv_lower_npu.h"
#include "sim/runtime/lowering/npu_work_bound.h"
#include "sim/runtime/lowering/precision_formats.h"

namespace socsim::runtime::lowering {

namespace {

kernels::GemmDims dims_of(const model::OpDesc& op) {
  return {static_cast<std::int64_t>(op.m), static_cast<std::int64_t>(op.k), static_cast<std::int64_t>(op.n)};
}

}  // namespace

kernels::CpuWork lower_matmul_cpu(const model::OpDesc& op, Precision p, std::uint32_t threads) {
  const auto d = dims_of(op);
  return static_cast<std::int64_t>(op.m) < kernels::kCpuGemmMinRows ? kernels::lower_matvec_cpu(d, gemm_format(p), threads)
                                                                     : kernels::lower_gemm_cpu(d, gemm_format(p), threads);
}

kernels::GpuWork lower_matmul_gpu(const model::OpDesc& op, Precision p) {
  const auto d = dims_of(op);
  return static_cast<std::int64_t>(op.m) < kernels::kGpuGemmMinRows ? kernels::lower_matvec_gpu(d, gemm_format(p)) : kernels::lower_gemm_gpu(d, gemm_format(p));
}

namespace {

// The vendor runtime's kernels for the op at any row count: static-graph HMX tiles (custom W4A16
// kernels for TTS), or FP16 HMX.
kernels::NpuWork lower_matmul_npu_tiles(const model::OpDesc& op, const kernels::GemmFormat& f, const hw::NpuSpec& npu,
                                        const NpuKernelChoice& choice) {
  const auto d = dims_of(op);
  // The static graph's activation layout: the equivalent-shape search times the per-tensor GEMM
  // in the graph's own precision.
  // (weight_bits: what the lowering stages, 4 for the W4A16 graph's INT4 codes.)
  const auto graph_width = [&](hw::DType dtype, std::uint32_t weight_bits = 0) {
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    return kernels::graph_activation_width(npu, {u(d.m), u(d.k), u(d.n), dtype, 0, 0, weight_bits}, hw::OperandHome::kDram, choice.graph_layout);
  };
  switch (f.weights) {
    case kernels::GemmWeights::kI8: return kernels::lower_gemm_i8_npu(d, hw::OperandHome::kDram, graph_width(hw::DType::kInt8));
    case kernels::GemmWeights::kI8PerGroup:
      return kernels::lower_gemm_i8_per_group_npu(d, f.group, npu, hw::OperandHome::kDram, graph_width(hw::DType::kInt8));
    case kernels::GemmWeights::kBlock: {
      if (choice.w4a16 == W4A16Kernel::kVendorGraph) {
        return kernels::lower_gemm_w4a16_graph_npu(d, npu, hw::OperandHome::kDram, graph_width(hw::DType::kFp16, kernels::kW4a16GraphWeightBits));
      }
      const bool q8 = choice.q8_0_down && op.name == "down_proj";
      return kernels::lower_gemm_w4a16_npu(d, q8 ? kernels::BlockFormat::kQ8_0 : f.block, npu, {choice.dequant, choice.prefetch_weights, {}});
    }
    case kernels::GemmWeights::kF16:
    case kernels::GemmWeights::kF32: break;
  }
  return kernels::lower_gemm_f16_hmx_npu(d, npu);
}

// The graph's node dispatches the executor charges for a work: a per-group INT8 graph of 4 G - 1
// nodes pays them whatever its engines do.
double dispatch_seconds(const hw::NpuSpec& npu, const kernels::NpuWork& w) { return to_seconds(graph_node_dispatches(w) * npu.graph.op_dispatch); }

// Formats lower_gemv_npu has a rule for.
bool has_gemv_rule(const kernels::GemmFormat& f) {
  if (f.weights == kernels::GemmWeights::kF32) return false;
  return f.weights != kernels::GemmWeights::kBlock || f.block == kernels::BlockFormat::kQ4_0;
}

}  // namespace

kernels::NpuWork lower_matmul_npu(const model::OpDesc& op, Precision p, const hw::NpuSpec& npu, const NpuKernelChoice& choice) {
  const auto d = dims_of(op);
  const kernels::GemmFormat f = npu_gemm_format(p);
  // The vendor runtime decodes W4 weights on its integer path (HeteroLLM's footnote, gemv_lower_npu.h).
  const auto arithmetic = choice.w4a16 == W4A16Kernel::kVendorGraph ? kernels::GemvArithmetic::kInteger : kernels::GemvArithmetic::kFloat;
  if (op.m == 1 && !choice.hmx_gemv) return kernels::lower_gemv_npu(d, f, npu, arithmetic);
  kernels::NpuWork tiles = lower_matmul_npu_tiles(op, f, npu, choice);
  // A few rows (a decode batch): HMX pads them to a whole tile of rows and stages the weights tile
  // by tile, which costs what it costs for a full tile; streaming the weights once past every row
  // on HVX costs arithmetic in proportion to the rows. The runtime's compiler takes the one its
  // cost model (the engines' bound) finds faster: a batch of 2 streams (it ran 6x slower per step
  // than one row through HMX tiles), a batch near a tile's rows multiplies on HMX.
  // (TTS's kernels, hmx_gemv, put every row count on HMX: its point.)
  // (The compared costs: each kernel's engines and its graph's node dispatches. A custom kernel's
  // Q8_0 down projection has no streaming rule.)
  const bool q8_down = choice.w4a16 == W4A16Kernel::kCustom && choice.q8_0_down && op.name == "down_proj";
  if (!choice.hmx_gemv && op.m < npu.hmx.tile_rows && has_gemv_rule(f) && !q8_down) {
    kernels::NpuWork stream = kernels::lower_gemv_npu(d, f, npu, arithmetic);
    const auto cost = [&](const kernels::NpuWork& w) { return npu_engines_seconds(npu, w) + dispatch_seconds(npu, w); };
    if (cost(stream) < cost(tiles)) return stream;
  }
  return tiles;
}

}  // namespace socsim::runtime::lowering
