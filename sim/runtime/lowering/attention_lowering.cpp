#include "sim/runtime/lowering/attention_lowering.h"

#include <stdexcept>
#include <string>

#include "kernels/attention/attention_decode_lower.h"
#include "kernels/attention/attention_lower.h"
#include "kernels/attention/flash_lower.h"
#include "kernels/attention/int8_attention.h"
#include "sim/core/host_memory.h"
#include "sim/runtime/lowering/npu_step_coalescing.h"

namespace socsim::runtime::lowering {

bool is_attention_op(model::OpKind k) {
  return k == model::OpKind::kAttnScores || k == model::OpKind::kSoftmax || k == model::OpKind::kAttnContext;
}

AttentionPart attention_part(model::OpKind k) {
  switch (k) {
    case model::OpKind::kAttnScores: return AttentionPart::kScores;
    case model::OpKind::kSoftmax: return AttentionPart::kSoftmax;
    case model::OpKind::kAttnContext: return AttentionPart::kContext;
    default: break;
  }
  throw std::invalid_argument(std::string("op kind '") + model::op_kind_name(k) + "' is not part of attention");
}

kernels::AttentionShape attention_shape_of(const model::OpDesc& op, const model::ModelConfig& m) {
  if (op.kind != model::OpKind::kAttnScores && op.kind != model::OpKind::kAttnContext) {
    throw std::invalid_argument("attention shape of op '" + op.name + "', which is not attn_scores or attn_context");
  }
  const std::uint64_t group = m.heads / m.kv_heads;
  if (op.batch % group != 0) {
    throw std::invalid_argument("op '" + op.name + "': " + std::to_string(op.batch) + " query heads do not form whole GQA groups of " +
                                std::to_string(group));
  }
  kernels::AttentionShape s;
  s.heads = op.batch;
  s.kv_heads = op.batch / group;
  s.q_len = op.m;
  const bool scores = op.kind == model::OpKind::kAttnScores;
  s.head_dim = scores ? op.k : op.n;
  s.kv_len = scores ? op.n : op.k;
  if (s.kv_len < s.q_len) throw std::invalid_argument("op '" + op.name + "': fewer keys than queries");
  s.q_pos0 = s.kv_len - s.q_len;
  s.validate();
  return s;
}

std::uint64_t softmax_elements(const kernels::AttentionShape& s) { return s.heads * s.q_len * s.kv_len; }

AttentionPart part_of_step(const std::string& name) {
  // Task and step names of attention_lower.cpp, int8_attention_lower.cpp and flash_lower.cpp.
  static const std::pair<const char*, AttentionPart> kPrefixes[] = {
      {"attention.qk", AttentionPart::kScores},   {"attention.softmax", AttentionPart::kSoftmax},
      {"attention.pv", AttentionPart::kContext},  {"flash.qk", AttentionPart::kScores},
      {"flash.q", AttentionPart::kScores},        {"flash.kv", AttentionPart::kScores},
      {"flash.softmax", AttentionPart::kSoftmax}, {"flash.pv", AttentionPart::kContext},
      {"flash.o", AttentionPart::kContext}};
  for (const auto& [prefix, part] : kPrefixes) {
    if (name.rfind(prefix, 0) == 0) return part;
  }
  throw std::logic_error("attention kernel step '" + name + "' belongs to none of attn_scores, softmax, attn_context");
}

kernels::CpuWork attention_kernel_cpu(const kernels::AttentionShape& s, std::uint32_t threads, Precision p) {
  // A float job in FP16 multiplies in FP16 (the FP16 KV cache); every other precision in FP32.
  const hw::DType d = p == Precision::kFp16 ? hw::DType::kFp16 : hw::DType::kFp32;
  return s.q_len == 1 ? kernels::lower_attention_decode_cpu(s, threads, d) : kernels::lower_attention_cpu(s, threads, d);
}

kernels::GpuWork attention_kernel_gpu(const kernels::AttentionShape& s) {
  return s.q_len == 1 ? kernels::lower_attention_decode_gpu(s) : kernels::lower_attention_gpu(s);
}

kernels::NpuWork attention_kernel_npu(const kernels::AttentionShape& s, Precision p, const hw::NpuSpec& npu, kernels::ExpVariant exp) {
  if (p == Precision::kW8A8 || p == Precision::kW8A8Group) return kernels::lower_attention_int8_npu(npu, s, npu.hvx.contexts);
  kernels::FlashParams params;
  params.exp = exp;
  return kernels::lower_flash_attention_npu(npu, s, params, npu.hvx.contexts, hw::OperandHome::kDram);
}

kernels::CpuWork lower_attention_part_cpu(const kernels::AttentionShape& s, AttentionPart part, std::uint32_t threads, Precision p) {
  kernels::CpuWork all = attention_kernel_cpu(s, threads, p), w;
  w.threads = all.threads;
  for (auto& t : all.tasks) {
    if (part_of_step(t.name) == part) w.tasks.push_back(std::move(t));
  }
  return w;
}

kernels::GpuWork lower_attention_part_gpu(const kernels::AttentionShape& s, AttentionPart part) {
  kernels::GpuWork all = attention_kernel_gpu(s), w;
  for (auto& k : all.kernels) {
    if (part_of_step(k.name) == part) w.kernels.push_back(std::move(k));
  }
  return w;
}

std::array<NpuAttentionPart, 3> lower_attention_parts_npu(const kernels::AttentionShape& s, Precision p, const hw::NpuSpec& npu,
                                                          kernels::ExpVariant exp) {
  std::array<NpuAttentionPart, 3> out;
  std::array<SequentialStepCoalescer, 3> parts{SequentialStepCoalescer(npu), SequentialStepCoalescer(npu), SequentialStepCoalescer(npu)};
  if (p != Precision::kW8A8 && p != Precision::kW8A8Group) {
    // The flash kernel streamed: each step goes to its part's coalescer as it is made, so a
    // batch's prompt kernel (16 sequences x 32 heads: some 50,000 steps) is never held whole.
    // Its steps carry a handful of names: the part of the last one is remembered.
    kernels::FlashParams params;
    params.exp = exp;
    std::string last_name;
    std::size_t last_part = 0;
    kernels::for_each_flash_attention_npu_step(npu, s, params, npu.hvx.contexts, hw::OperandHome::kDram, [&](kernels::NpuStep&& step) {
      if (step.name != last_name) {
        last_part = static_cast<std::size_t>(part_of_step(step.name));
        last_name = step.name;
      }
      parts[last_part].add(std::move(step));
    });
    // A custom kernel without a graph of its own is one node of the job's graph per op.
    for (std::size_t q = 0; q < out.size(); ++q) {
      out[q].work.steps = parts[q].take();
      out[q].graph_nodes = 1;
    }
    return out;
  }
  // The INT8 static graph: its graph call's nodes are all counted with attn_scores.
  kernels::NpuWork all = attention_kernel_npu(s, p, npu, exp);
  bool graph = false;
  for (auto& step : all.steps) {
    if (step.kind == kernels::NpuStep::Kind::kGraphCall) {
      graph = true;
      out[static_cast<std::size_t>(AttentionPart::kScores)].graph_nodes += step.graph_ops;
      out[static_cast<std::size_t>(AttentionPart::kScores)].graph_io_bytes += step.bytes;
    } else {
      parts[static_cast<std::size_t>(part_of_step(step.name))].add(std::move(step));
    }
  }
  for (std::size_t q = 0; q < out.size(); ++q) {
    out[q].work.steps = parts[q].take();
    if (!graph) out[q].graph_nodes = 1;
  }
  return out;
}

NpuAttentionPart lower_attention_part_npu(const kernels::AttentionShape& s, AttentionPart part, Precision p, const hw::NpuSpec& npu,
                                          kernels::ExpVariant exp) {
  return std::move(lower_attention_parts_npu(s, p, npu, exp)[static_cast<std::size_t>(part)]);
}

NpuAttentionPart NpuAttentionParts::take(const kernels::AttentionShape& s, AttentionPart part, Precision p, kernels::ExpVariant exp) {
  const Key key{s.heads, s.kv_heads, s.head_dim, s.q_len, s.q_pos0, s.kv_len, static_cast<int>(p), static_cast<int>(exp)};
  const auto which = static_cast<std::size_t>(part);
  auto it = parts_.find(key);
  if (it == parts_.end() || it->second.taken[which]) {
    if (it != parts_.end()) parts_.erase(it);
    if (parts_.size() >= kLimit) parts_.clear();
    it = parts_.emplace(key, Held{lower_attention_parts_npu(s, p, npu_, exp), {}}).first;
    for (const NpuAttentionPart& kept : it->second.parts) note_host_growth(kernels::host_bytes(kept.work));  // as LoweringCache::npu
  }
  NpuAttentionPart out = std::move(it->second.parts[which]);
  it->second.taken[which] = true;
  if (it->second.taken[0] && it->second.taken[1] && it->second.taken[2]) parts_.erase(it);
  return out;
}

}  // namespace socsim::runtime::lowering
