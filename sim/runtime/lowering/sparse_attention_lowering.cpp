#include "sim/runtime/lowering/sparse_attention_lowering.h"

#include <stdexcept>
#include <string>

#include "kernels/attention/attention_lower.h"
#include "kernels/attention/int8_attention.h"
#include "kernels/topk/topk.h"

namespace socsim::runtime::lowering {

using model::OpKind;

bool is_sparse_attention_op(OpKind k) {
  return k == OpKind::kQkEstimate || k == OpKind::kTopK || k == OpKind::kSparseAttn || k == OpKind::kBlockSparseAttn ||
         k == OpKind::kPipelinePlan;
}

kernels::AttentionShape sparse_op_shape(const model::OpDesc& op, const model::ModelConfig& m) {
  if (op.n < op.m) throw std::invalid_argument("op '" + op.name + "': fewer keys than queries");
  const std::uint64_t group = m.kv_heads ? std::max<std::uint64_t>(1, m.heads / m.kv_heads) : 1;
  kernels::AttentionShape s;
  s.heads = op.batch;
  s.kv_heads = std::max<std::uint64_t>(1, op.batch / group);
  while (s.heads % s.kv_heads != 0) --s.kv_heads;
  s.q_len = op.m;
  s.kv_len = op.n;
  s.head_dim = op.k ? op.k : m.head_dim;
  s.q_pos0 = op.n - op.m;
  s.validate();
  return s;
}

double op_ratio(const model::OpDesc& op) { return static_cast<double>(op.weight_params) / kRatioUnit; }

kernels::CpuWork lower_sparse_op_cpu(const model::OpDesc& op, const model::ModelConfig& m, std::uint32_t threads) {
  if (op.kind == OpKind::kPipelinePlan) {
    // Branchy scalar code on one core: no vector rate, no DRAM traffic (the tables fit in L1).
    hw::CpuTask t;
    t.name = "pipeline_plan";
    t.ops = static_cast<double>(op.elements);
    t.scalar = true;
    return kernels::CpuWork{{t}, 1};
  }
  const auto s = sparse_op_shape(op, m);
  switch (op.kind) {
    case OpKind::kTopK: {
      // One kernel call over every head (and sequence) of the op: each selects over the same
      // rows, so one head's work times the heads, dispatched once.
      kernels::CpuWork w = kernels::lower_topk_cpu_ratio({s.q_len, s.kv_len, s.q_pos0, 4}, op_ratio(op), threads);
      for (auto& t : w.tasks) {
        t.ops *= static_cast<double>(s.heads);
        t.dram_bytes *= s.heads;
      }
      return w;
    }
    case OpKind::kSparseAttn: return kernels::lower_sparse_attention_cpu(s, op.elements, threads);
    case OpKind::kBlockSparseAttn: return kernels::lower_block_sparse_attention_cpu(s, {64, 0, op_ratio(op)}, threads);
    default: break;
  }
  throw std::invalid_argument(std::string("op kind '") + model::op_kind_name(op.kind) + "' has no CPU face");
}

kernels::GpuWork lower_sparse_op_gpu(const model::OpDesc& op, const model::ModelConfig& m) {
  const auto s = sparse_op_shape(op, m);
  switch (op.kind) {
    case OpKind::kTopK: {
      // One launch for all heads (a work-group per row of every head).
      kernels::GpuWork w = kernels::lower_topk_gpu_ratio({s.q_len, s.kv_len, s.q_pos0, 4}, op_ratio(op));
      w.kernels.front().flops *= static_cast<double>(s.heads);
      w.kernels.front().dram_bytes *= s.heads;
      return w;
    }
    case OpKind::kSparseAttn: return kernels::lower_sparse_attention_gpu(s, op.elements);
    case OpKind::kBlockSparseAttn: return kernels::lower_block_sparse_attention_gpu(s, {64, 0, op_ratio(op)});
    default: break;
  }
  throw std::invalid_argument(std::string("op kind '") + model::op_kind_name(op.kind) + "' has no GPU face");
}

NpuSparseOp lower_sparse_op_npu(const model::OpDesc& op, const model::ModelConfig& m) {
  if (op.kind != OpKind::kQkEstimate) {
    throw std::invalid_argument(std::string("op kind '") + model::op_kind_name(op.kind) + "' has no NPU face");
  }
  NpuSparseOp out;
  out.graph_nodes = 0;
  for (auto& step : kernels::lower_qk_estimate_npu(sparse_op_shape(op, m)).steps) {
    if (step.kind == kernels::NpuStep::Kind::kGraphCall) {
      out.graph_nodes += step.graph_ops;
      out.graph_io_bytes += step.bytes;
    } else {
      out.work.steps.push_back(std::move(step));
    }
  }
  return out;
}

}  // namespace socsim::runtime::lowering
