#pragma once
// The model's non-GEMM, non-attention ops through the kernels' faces. An OpDesc of these kinds
// carries only its element count and name, so the shape comes from the model:
//   norm          RMSNorm or LayerNorm (model.norm), [elements / hidden, hidden]
//                 (kernels/elementwise/elementwise_lower.h)
//   activation    SiLU, GELU (erf), GELU (tanh) per model.activation, over
//                 [elements / intermediate, intermediate]; ReLU: relu_lower.h
//   elementwise   the residual adds and the gate multiply (residual_add / gate_mul: same counts),
//                 pointwise; the host's "sample" op (plan_builder.cpp: argmax over the logits) is
//                 a top-1 over the vocabulary (kernels/topk/topk.h), CPU only
//   bias_add      no face of its own: the residual-add face (the closest: one add per element,
//                 the same HVX packets), which reads the bias as a full tensor, not one
//                 broadcast row (one activation tensor's bytes too many)
//   rope          lower_rope_* (rope.h) with tokens = elements / (heads x head_dim), heads the
//                 query heads for rope_q and the kv heads for rope_k; the model's rope_theta and
//                 rotary_fraction (phi-2 rotates 0.4 of its head dims)
//   quantize      lower_quantize_* with a static (calibrated) scale, dequantize lower_dequantize_*
//                 (kernels/quant/quant_lower.h): CPU and NPU only
// CPU faces compute in FP32 on the job's threads; GPU faces in gpu_float_dtype(precision); NPU
// faces on FP16 data in TCM over all HVX contexts. A kind with no face on a unit throws
// std::invalid_argument.
#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"
#include "sim/model/layer_ops.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"

namespace socsim::runtime::lowering {

kernels::CpuWork lower_pointwise_cpu(const model::OpDesc& op, const model::ModelConfig& m, std::uint32_t threads);
kernels::GpuWork lower_pointwise_gpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p);
kernels::NpuWork lower_pointwise_npu(const model::OpDesc& op, const model::ModelConfig& m, const hw::NpuSpec& npu);

}  // namespace socsim::runtime::lowering
