#pragma once
// Lowers one model op to the work it is on a unit at a precision through the kernels' `lower`
// faces (kernels/, DESIGN.md 1.2): the kernels own every cost (FLOPs, bytes, HMX GEMM shapes,
// HVX packets); the runtime only picks the face and its shape for the op:
//   matmul                              lowering/matmul_lowering.h (GEMM; GEMV for one row)
//   attn_scores, softmax, attn_context  lowering/attention_lowering.h (the parts of one
//                                       attention kernel; the CPU/GPU mat-muls compute the
//                                       masked scores too, NPU kernels see the note there)
//   norm, activation, elementwise, bias_add, rope, quantize, dequantize, the host's sample
//                                       lowering/elementwise_lowering.h
// Each task/kernel/step is named "<op name>/<kernel's name>".
#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_run_memo.h"
#include "sim/hw/npu/npu_spec.h"
#include "sim/model/layer_ops.h"
#include "sim/model/model_config.h"
#include "sim/runtime/cpu_engine.h"
#include "sim/runtime/job.h"
#include "sim/runtime/npu_kernel_choice.h"

namespace socsim::runtime {

// `attention`: the shape of the layer's attention (attention_shape_of() of its attn_scores op),
// needed by the softmax op, whose OpDesc carries only its element count; ignored by other ops.
// A softmax op without it throws std::invalid_argument.
// `engine` kLlamaCpp: quantized matmuls and attention through llama.cpp's kernels
// (lowering/llamacpp_lowering.h); every other op as kOptimized.
kernels::CpuWork lower_op_cpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p, std::uint32_t threads,
                              const kernels::AttentionShape* attention = nullptr, CpuEngine engine = CpuEngine::kOptimized);
kernels::GpuWork lower_op_gpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p,
                              const kernels::AttentionShape* attention = nullptr);

// An op's NPU work inside a job's static graph. The kernels' graph_call steps are left out: in a
// runtime NPU job the graph call is the executor's, one per job for the sum of its ops'
// graph_nodes. graph_nodes is the node count of the kernel's own graph call (4 G - 1 for a
// per-group INT8 GEMM, 8 per head for INT8 attention, counted with attn_scores), or 1 for a
// kernel without one (a graph node of its own); 0 for the parts of an attention whose nodes are
// counted with attn_scores.
// gemm_blocks: the HMX GEMM blocks the work computes (0: a vector-only op), which the runtime's
// graph dataflow uses to stream a consumer behind its matmul.
// graph_io_bytes: the bytes of the inputs and outputs of the kernel's own graph call (0 for a
// kernel without one): what the call synchronizes when the job's tensors are client buffers
// (Job::npu_client_io).
struct NpuOpWork {
  kernels::NpuWork work;
  std::uint32_t graph_nodes = 1;
  std::uint64_t graph_io_bytes = 0;
  std::uint64_t gemm_blocks = 0;
  hw::NpuRunMemo::Key signature;  // npu_work_signature(work), taken once per lowering
};
namespace lowering {
class NpuAttentionParts;  // attention_lowering.h
}  // namespace lowering

// `attention_parts`, when given, memoizes attention kernels' lowering for this NPU.
NpuOpWork lower_op_npu(const model::OpDesc& op, const model::ModelConfig& m, Precision p, const hw::NpuSpec& npu,
                       const kernels::AttentionShape* attention = nullptr, const NpuKernelChoice& choice = {},
                       lowering::NpuAttentionParts* attention_parts = nullptr);

// The kernel shape of a layer's attention from its attn_scores or attn_context op.
kernels::AttentionShape attention_shape_of(const model::OpDesc& op, const model::ModelConfig& m);

// Bits per stored weight and bytes per activation element of a precision (graph-size model).
double precision_weight_bits(Precision p);
double precision_activation_bytes(Precision p);

}  // namespace socsim::runtime
