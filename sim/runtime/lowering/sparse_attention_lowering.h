#pragma once
// shadowAttn's attention ops (layer_ops.h kQkEstimate, kTopK, kSparseAttn, kBlockSparseAttn) to
// kernel faces:
//   qk_estimate             NPU: lower_qk_estimate_npu (int8_attention.h), batch heads fused in
//                           one graph (its graph call's nodes are the job's)
//   topk                    CPU: lower_topk_cpu_ratio (kernels/topk/topk.h) per head over INT32
//                           (NPU) scores, k = ceil(ratio x visible) per row
//   sparse_attention        CPU/GPU: lower_sparse_attention_* over `elements` kept pairs
//   block_sparse_attention  CPU/GPU: lower_block_sparse_attention_* (64x64 blocks, ratio)
// The ratio rides in weight_params as millionths (these ops read no weights).
#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/lowering/work.h"
#include "sim/model/layer_ops.h"
#include "sim/model/model_config.h"

namespace socsim::runtime::lowering {

bool is_sparse_attention_op(model::OpKind k);
inline constexpr double kRatioUnit = 1e6;
// batch query heads with ceil(batch / group) kv heads; m rows at the last positions of n keys.
kernels::AttentionShape sparse_op_shape(const model::OpDesc& op, const model::ModelConfig& m);
double op_ratio(const model::OpDesc& op);

kernels::CpuWork lower_sparse_op_cpu(const model::OpDesc& op, const model::ModelConfig& m, std::uint32_t threads);
kernels::GpuWork lower_sparse_op_gpu(const model::OpDesc& op, const model::ModelConfig& m);
struct NpuSparseOp {
  kernels::NpuWork work;  // without its graph call
  std::uint32_t graph_nodes = 1;
  std::uint64_t graph_io_bytes = 0;  // its graph call's input and output bytes
};
NpuSparseOp lower_sparse_op_npu(const model::OpDesc& op, const model::ModelConfig& m);

}  // namespace socsim::runtime::lowering
