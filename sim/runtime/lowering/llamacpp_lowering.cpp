#include "sim/runtime/lowering/llamacpp_lowering.h"

#include <stdexcept>

#include "kernels/llamacpp/llamacpp_lower.h"
#include "kernels/llamacpp/vec_dot_costs.h"
#include "sim/runtime/lowering/attention_lowering.h"

namespace socsim::runtime::lowering {

bool llamacpp_lowers(const model::OpDesc& op, Precision p) {
  if (op.kind == model::OpKind::kMatMul) return p == Precision::kW4A16;
  return is_attention_op(op.kind);
}

kernels::CpuWork lower_llamacpp_cpu(const model::OpDesc& op, const model::ModelConfig& m, std::uint32_t threads,
                                    const kernels::AttentionShape& attention) {
  namespace lc = kernels::llamacpp;
  if (op.kind == model::OpKind::kMatMul) {
    const kernels::GemmDims d{static_cast<std::int64_t>(op.m), static_cast<std::int64_t>(op.k), static_cast<std::int64_t>(op.n)};
    return lc::lower_kquant_matmul_cpu(d, lc::q4_k_m_q6_k_fraction(op.name, m.layers), threads);
  }
  auto w = lc::lower_attention_cpu(attention, threads);
  switch (attention_part(op.kind)) {
    case AttentionPart::kScores: return w.scores;
    case AttentionPart::kSoftmax: return w.softmax;
    case AttentionPart::kContext: return w.context;
  }
  throw std::logic_error("llama.cpp lowering: attention op '" + op.name + "' of no part");
}

}  // namespace socsim::runtime::lowering
