#include "sim/runtime/lowering/elementwise_lowering.h"

#include <stdexcept>
#include <string>

#include "kernels/elementwise/elementwise_lower.h"
#include "kernels/elementwise/relu_lower.h"
#include "kernels/elementwise/rope.h"
#include "kernels/quant/quant_lower.h"
#include "kernels/topk/topk.h"
#include "sim/runtime/lowering/precision_formats.h"

namespace socsim::runtime::lowering {

namespace {

using kernels::ElementwiseOp;
using model::OpKind;

// [elements / cols, cols] when cols divides the count, else one row.
kernels::ElementwiseShape rows_of(std::uint64_t elements, std::uint64_t cols) {
  if (cols == 0 || elements % cols != 0) return {1, elements};
  return {elements / cols, cols};
}

bool is_sample(const model::OpDesc& op) { return op.kind == OpKind::kElementwise && op.name == "sample"; }

// The elementwise face an op of these kinds is, and its shape (relu: the ReLU face instead).
struct Pointwise {
  ElementwiseOp op = ElementwiseOp::kResidualAdd;
  bool relu = false;
  kernels::ElementwiseShape shape;
};

Pointwise pointwise_of(const model::OpDesc& op, const model::ModelConfig& m) {
  switch (op.kind) {
    case OpKind::kNorm:
      return {m.norm == model::NormKind::kLayerNorm ? ElementwiseOp::kLayerNorm : ElementwiseOp::kRmsNorm, false,
              rows_of(op.elements, m.hidden)};
    case OpKind::kActivation: {
      const auto shape = rows_of(op.elements, m.intermediate);
      switch (m.activation) {
        case model::Activation::kSilu: return {ElementwiseOp::kSilu, false, shape};
        case model::Activation::kGelu: return {ElementwiseOp::kGeluErf, false, shape};
        case model::Activation::kGeluTanh: return {ElementwiseOp::kGeluTanh, false, shape};
        case model::Activation::kRelu: return {ElementwiseOp::kResidualAdd, true, shape};
      }
      break;
    }
    case OpKind::kElementwise:
      return {op.name == "gate_mul" ? ElementwiseOp::kGateMul : ElementwiseOp::kResidualAdd, false, {1, op.elements}};
    case OpKind::kBiasAdd: return {ElementwiseOp::kResidualAdd, false, {1, op.elements}};
    default: break;
  }
  throw std::logic_error(std::string("op kind '") + model::op_kind_name(op.kind) + "' is not pointwise");
}

bool is_pointwise_kind(OpKind k) {
  return k == OpKind::kNorm || k == OpKind::kActivation || k == OpKind::kElementwise || k == OpKind::kBiasAdd;
}

kernels::RopeShape rope_shape(const model::OpDesc& op, const model::ModelConfig& m) {
  const std::uint64_t heads = op.name == "rope_k" ? m.kv_heads : m.heads;
  const std::uint64_t per_token = heads * m.head_dim;
  if (per_token == 0 || op.elements % per_token != 0) {
    throw std::invalid_argument("rope op '" + op.name + "': " + std::to_string(op.elements) + " elements are not whole tokens of " +
                                std::to_string(heads) + " heads x " + std::to_string(m.head_dim));
  }
  return {op.elements / per_token, heads, m.head_dim};
}

kernels::RopeParams rope_params(const model::ModelConfig& m) { return {m.rope_theta, m.rotary_fraction, m.rope_scaling}; }

[[noreturn]] void no_face(const model::OpDesc& op, const char* unit) {
  throw std::invalid_argument(std::string("no ") + unit + " lower face for op '" + op.name + "' (" + model::op_kind_name(op.kind) + ")");
}

std::int64_t count(const model::OpDesc& op) { return static_cast<std::int64_t>(op.elements); }

}  // namespace

kernels::CpuWork lower_pointwise_cpu(const model::OpDesc& op, const model::ModelConfig& m, std::uint32_t threads) {
  if (is_sample(op)) {
    // Argmax over each sequence's logits: top-1 with every key visible.
    const std::uint64_t rows = m.vocab && op.elements % m.vocab == 0 ? op.elements / m.vocab : 1;
    const std::uint64_t n = op.elements / rows;
    return kernels::lower_topk_cpu({rows, n, n > 0 ? n - 1 : 0, 4}, 1, threads);
  }
  switch (op.kind) {
    case OpKind::kRope: return kernels::lower_rope_cpu(rope_shape(op, m), rope_params(m), threads);
    case OpKind::kQuantize: return kernels::lower_quantize_cpu(count(op), false, threads);
    case OpKind::kDequantize: return kernels::lower_dequantize_cpu(count(op), threads);
    default: break;
  }
  if (!is_pointwise_kind(op.kind)) no_face(op, "CPU");
  const Pointwise p = pointwise_of(op, m);
  return p.relu ? kernels::lower_relu_cpu(p.shape, threads) : kernels::lower_elementwise_cpu(p.op, p.shape, threads);
}

kernels::GpuWork lower_pointwise_gpu(const model::OpDesc& op, const model::ModelConfig& m, Precision precision) {
  const hw::DType dtype = gpu_float_dtype(precision);
  if (is_sample(op)) no_face(op, "GPU");
  if (op.kind == OpKind::kRope) return kernels::lower_rope_gpu(rope_shape(op, m), rope_params(m), dtype);
  if (op.kind == OpKind::kQuantize) return kernels::lower_quantize_gpu(count(op));
  if (op.kind == OpKind::kDequantize) return kernels::lower_dequantize_gpu(count(op));
  if (!is_pointwise_kind(op.kind)) no_face(op, "GPU");
  const Pointwise p = pointwise_of(op, m);
  return p.relu ? kernels::lower_relu_gpu(p.shape, dtype) : kernels::lower_elementwise_gpu(p.op, p.shape, dtype);
}

kernels::NpuWork lower_pointwise_npu(const model::OpDesc& op, const model::ModelConfig& m, const hw::NpuSpec& npu) {
  const std::uint32_t threads = npu.hvx.contexts;
  if (is_sample(op)) no_face(op, "NPU");
  switch (op.kind) {
    case OpKind::kRope: return kernels::lower_rope_npu(npu, rope_shape(op, m), rope_params(m), threads);
    case OpKind::kQuantize: return kernels::lower_quantize_npu(count(op), false, npu);
    case OpKind::kDequantize: return kernels::lower_dequantize_npu(count(op), npu);
    default: break;
  }
  if (!is_pointwise_kind(op.kind)) no_face(op, "NPU");
  const Pointwise p = pointwise_of(op, m);
  return p.relu ? kernels::lower_relu_npu(npu, p.shape, threads) : kernels::lower_elementwise_npu(npu, p.op, p.shape, threads);
}

}  // namespace socsim::runtime::lowering
