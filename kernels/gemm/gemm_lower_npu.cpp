#include "kernels/gemm/gemm_lower_npu.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/gemm/hvx_costs.h"
#include "sim/hw/npu/gemm_plan.h"

namespace socsim::kernels {

namespace {

std::uint64_t u64(std::int64_t v) { return static_cast<std::uint64_t>(v); }
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

void check_dims(const GemmDims& d) {
  if (d.m <= 0 || d.k <= 0 || d.n <= 0) throw std::invalid_argument("NPU GEMM with an empty dimension");
}

}  // namespace

NpuWork lower_gemm_i8_npu(const GemmDims& d, hw::OperandHome home, std::uint64_t width) {
  check_dims(d);
  NpuWork w;
  w.steps.push_back(NpuStep::graph_call("w8a8_matmul graph", 1));
  w.steps.push_back(NpuStep::hmx_gemm("w8a8_matmul", {u64(d.m), u64(d.k), u64(d.n), hw::DType::kInt8, width}, home));
  return w;
}

NpuWork lower_gemm_i8_per_group_npu(const GemmDims& d, std::int64_t group, const hw::NpuSpec& spec,
                                    hw::OperandHome home, std::uint64_t width) {
  check_dims(d);
  if (group < 1) throw std::invalid_argument("quantization group must have at least one row");
  const std::int64_t groups = (d.k + group - 1) / group;
  const double vectors = static_cast<double>(ceil_div(u64(d.m * d.n), spec.hvx.vector_bytes / 4));
  NpuWork w;
  w.steps.push_back(NpuStep::graph_call("w8a8_group_matmul graph", static_cast<std::uint32_t>(4 * groups - 1)));
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t depth = std::min(group, d.k - g * group);
    const std::string tag = "group " + std::to_string(g);
    w.steps.push_back(NpuStep::hmx_gemm(tag + " sub-gemm", {u64(d.m), u64(depth), u64(d.n), hw::DType::kInt8, width}, home));
    w.steps.push_back(NpuStep::hvx(tag + " reduce", vectors * hvx::group_reduce_packets(spec.hvx, g == 0), spec.hvx.contexts));
  }
  return w;
}

NpuWork lower_gemm_f16_hmx_npu(const GemmDims& d, const hw::NpuSpec& spec, HmxOperandLayout layout,
                               hw::OperandHome home) {
  check_dims(d);
  const std::uint64_t rows = spec.hmx.tile_rows, depth = spec.hmx.fp16_tile_depth;
  const std::uint64_t mt = ceil_div(u64(d.m), rows), kt = ceil_div(u64(d.k), depth), nt = ceil_div(u64(d.n), rows);
  const double shuffle = hvx::tile_shuffle_packets(spec.hvx);
  NpuWork w;
  if (!layout.activations_tiled) {
    w.steps.push_back(NpuStep::hvx("tile activations", static_cast<double>(mt * kt) * shuffle, spec.hvx.contexts));
  }
  w.steps.push_back(NpuStep::hmx_gemm("hmx_f16_gemm", {u64(d.m), u64(d.k), u64(d.n), hw::DType::kFp16}, home));
  if (!layout.outputs_tiled) {
    w.steps.push_back(NpuStep::hvx("untile outputs", static_cast<double>(mt * nt) * shuffle, spec.hvx.contexts));
  }
  return w;
}

NpuWork lower_gemm_w4a16_graph_npu(const GemmDims& d, const hw::NpuSpec& spec, hw::OperandHome home, std::uint64_t width) {
  check_dims(d);
  // The INT4 codes are what DMA stages (a quarter of an FP16 tile's bytes); HVX widens them in TCM.
  const hw::GemmShape shape{u64(d.m), u64(d.k), u64(d.n), hw::DType::kFp16, width, 0, kW4a16GraphWeightBits};
  const auto plan = hw::plan_hmx_gemm_summary(spec, shape, home);
  // Per weight tile (rows x fp16 depth codes): vand + vlsr into index vectors and one vlut16 per
  // 2 x vector_bytes codes, i.e. per unit of hvx::weights_per_unit.
  const double tile_weights = static_cast<double>(spec.hmx.tile_rows * spec.hmx.fp16_tile_depth);
  // Tiles widened: each staged tile once. Streamed weights are staged (and loaded) once per row
  // block; resident ones are staged once and loaded into HMX for every row block.
  const double widened = plan.strategy == hw::GemmStrategy::kWeightsResident
                             ? static_cast<double>(ceil_div(u64(d.k), spec.hmx.fp16_tile_depth) * ceil_div(u64(d.n), spec.hmx.tile_rows))
                             : static_cast<double>(plan.total.weight_loads);
  const double widen = widened * tile_weights / hvx::weights_per_unit(spec.hvx) * (2 + 2.0 * spec.hvx.vlut16_packets);
  const double scale = static_cast<double>(ceil_div(u64(d.m) * u64(d.n), spec.hvx.vector_bytes / 2)) * (spec.hvx.qfloat ? 2.0 : 1.0);
  NpuWork w;
  w.steps.push_back(NpuStep::graph_call("w4a16_matmul graph", 1));
  w.steps.push_back(NpuStep::hvx("widen int4 weights", widen, spec.hvx.contexts));
  w.steps.push_back(NpuStep::hmx_gemm("w4a16_matmul", shape, home));
  w.steps.push_back(NpuStep::hvx("channel scales", scale, spec.hvx.contexts));
  return w;
}

}  // namespace socsim::kernels
