#include "sim/runtime/op_lowering.h"

#include "sim/runtime/npu_alone_replay.h"

#include <stdexcept>
#include <string>

#include "sim/runtime/lowering/attention_lowering.h"
#include "sim/runtime/lowering/npu_step_coalescing.h"
#include "sim/runtime/lowering/npu_work_bound.h"
#include "sim/runtime/lowering/elementwise_lowering.h"
#include "sim/runtime/lowering/llamacpp_lowering.h"
#include "sim/runtime/lowering/matmul_lowering.h"
#include "sim/runtime/lowering/precision_formats.h"
#include "sim/runtime/lowering/sparse_attention_lowering.h"
#include "sim/runtime/work_runner.h"

namespace socsim::runtime {

namespace {

using model::OpKind;

std::string qualified(const model::OpDesc& op, const std::string& kernel_name) { return op.name + "/" + kernel_name; }

// The attention shape an attention op lowers for: its own (scores, context) or the layer's
// (softmax, checked against the op's element count).
kernels::AttentionShape attention_for(const model::OpDesc& op, const model::ModelConfig& m, const kernels::AttentionShape* attention) {
  if (op.kind != OpKind::kSoftmax) return lowering::attention_shape_of(op, m);
  if (!attention) throw std::invalid_argument("softmax op '" + op.name + "' lowered without its layer's attention shape");
  if (lowering::softmax_elements(*attention) != op.elements) {
    throw std::invalid_argument("softmax op '" + op.name + "' has " + std::to_string(op.elements) + " elements, its attention " +
                                std::to_string(lowering::softmax_elements(*attention)));
  }
  return *attention;
}

}  // namespace

kernels::AttentionShape attention_shape_of(const model::OpDesc& op, const model::ModelConfig& m) {
  return lowering::attention_shape_of(op, m);
}

double precision_weight_bits(Precision p) { return lowering::weight_bits(p); }
double precision_activation_bytes(Precision p) { return lowering::activation_bytes(p); }

kernels::CpuWork lower_op_cpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p, std::uint32_t threads,
                              const kernels::AttentionShape* attention, CpuEngine engine) {
  kernels::CpuWork w;
  if (engine == CpuEngine::kLlamaCpp && lowering::llamacpp_lowers(op, p)) {
    const auto shape = lowering::is_attention_op(op.kind) ? attention_for(op, m, attention) : kernels::AttentionShape{};
    w = lowering::lower_llamacpp_cpu(op, m, threads, shape);
  } else if (op.kind == OpKind::kMatMul) {
    w = lowering::lower_matmul_cpu(op, p, threads);
  } else if (lowering::is_sparse_attention_op(op.kind)) {
    w = lowering::lower_sparse_op_cpu(op, m, threads);
  } else if (lowering::is_attention_op(op.kind)) {
    w = lowering::lower_attention_part_cpu(attention_for(op, m, attention), lowering::attention_part(op.kind), threads, p);
  } else {
    w = lowering::lower_pointwise_cpu(op, m, threads);
  }
  for (auto& t : w.tasks) t.name = qualified(op, t.name);
  return w;
}

kernels::GpuWork lower_op_gpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p, const kernels::AttentionShape* attention) {
  kernels::GpuWork w;
  if (op.kind == OpKind::kMatMul) {
    w = lowering::lower_matmul_gpu(op, p);
  } else if (lowering::is_sparse_attention_op(op.kind)) {
    w = lowering::lower_sparse_op_gpu(op, m);
  } else if (lowering::is_attention_op(op.kind)) {
    w = lowering::lower_attention_part_gpu(attention_for(op, m, attention), lowering::attention_part(op.kind));
  } else {
    w = lowering::lower_pointwise_gpu(op, m, p);
  }
  for (auto& k : w.kernels) k.name = qualified(op, k.name);
  return w;
}

NpuOpWork lower_op_npu(const model::OpDesc& op, const model::ModelConfig& m, Precision p, const hw::NpuSpec& npu,
                       const kernels::AttentionShape* attention, const NpuKernelChoice& choice, lowering::NpuAttentionParts* attention_parts) {
  NpuOpWork out;
  if (lowering::is_sparse_attention_op(op.kind)) {
    auto part = lowering::lower_sparse_op_npu(op, m);
    out.work = std::move(part.work);
    out.graph_nodes = part.graph_nodes;
    out.graph_io_bytes = part.graph_io_bytes;
  } else if (lowering::is_attention_op(op.kind)) {
    const auto shape = attention_for(op, m, attention);
    const auto which = lowering::attention_part(op.kind);
    auto part = attention_parts ? attention_parts->take(shape, which, p, choice.exp) : lowering::lower_attention_part_npu(shape, which, p, npu, choice.exp);
    out.work = std::move(part.work);
    out.graph_nodes = part.graph_nodes;
    out.graph_io_bytes = part.graph_io_bytes;
  } else {
    const kernels::NpuWork all =
        op.kind == OpKind::kMatMul ? lowering::lower_matmul_npu(op, p, npu, choice) : lowering::lower_pointwise_npu(op, m, npu);
    out.graph_nodes = lowering::graph_node_dispatches(all);
    out.work.stages = all.stages;
    for (const auto& step : all.steps) {
      if (step.kind != kernels::NpuStep::Kind::kGraphCall) {
        out.work.steps.push_back(step);
      } else {
        out.graph_io_bytes += step.bytes;
      }
    }
  }
  // Coalesced first: merging keeps the first name of each merged run, so naming after it gives the
  // same names for far fewer steps (a decode attention at batch 16 lists thousands).
  out.work = lowering::coalesce_sequential_steps(std::move(out.work), npu);
  for (auto& s : out.work.steps) s.name = qualified(op, s.name);
  out.gemm_blocks = gemm_blocks(npu, out.work);
  out.signature = npu_work_signature(out.work);
  return out;
}

}  // namespace socsim::runtime
