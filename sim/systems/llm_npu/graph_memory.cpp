#include "sim/systems/llm_npu/graph_memory.h"

#include <cmath>
#include <set>

#include "kernels/gemm/graph_activation_layout.h"
#include "sim/runtime/op_lowering.h"

namespace socsim::systems::llm_npu {

GraphMemory graph_memory(const runtime::Plan& plan, const hw::NpuSpec& npu) {
  GraphMemory g;
  std::set<std::string> seen;
  for (const auto& job : plan.jobs) {
    if (job.unit != kernels::Unit::kNpu || job.npu_graph.empty() || !seen.insert(job.npu_graph).second) continue;
    const double bits = runtime::precision_weight_bits(job.precision);
    for (const auto& op : job.ops) {
      if (op.op.kind != model::OpKind::kMatMul) continue;
      g.weight_bytes += static_cast<std::uint64_t>(std::ceil(static_cast<double>(op.op.weight_params) * bits / 8.0));
      hw::GemmShape shape{op.op.m, op.op.k, op.op.n, hw::DType::kInt8, 0};
      shape.width = kernels::graph_activation_width(npu, shape, hw::OperandHome::kDram, job.npu_kernels.graph_layout);
      const std::uint64_t rows = hw::stored_rows(npu, shape);
      g.buffer_bytes += rows * op.op.k + 4 * rows * op.op.n;
    }
  }
  return g;
}

}  // namespace socsim::systems::llm_npu
