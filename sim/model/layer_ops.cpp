#include "sim/model/layer_ops.h"

namespace socsim::model {

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::kNorm: return "norm";
    case OpKind::kMatMul: return "matmul";
    case OpKind::kBiasAdd: return "bias_add";
    case OpKind::kRope: return "rope";
    case OpKind::kAttnScores: return "attn_scores";
    case OpKind::kSoftmax: return "softmax";
    case OpKind::kAttnContext: return "attn_context";
    case OpKind::kActivation: return "activation";
    case OpKind::kElementwise: return "elementwise";
    case OpKind::kQuantize: return "quantize";
    case OpKind::kDequantize: return "dequantize";
    case OpKind::kQkEstimate: return "qk_estimate";
    case OpKind::kTopK: return "topk";
    case OpKind::kSparseAttn: return "sparse_attention";
    case OpKind::kBlockSparseAttn: return "block_sparse_attention";
    case OpKind::kPipelinePlan: return "pipeline_plan";
  }
  return "?";
}

namespace {

struct Builder {
  std::vector<OpDesc> ops;
  bool quantized;
  void elementwise(std::string name, OpKind kind, std::uint64_t elements) {
    OpDesc o{std::move(name), kind};
    o.elements = elements;
    ops.push_back(o);
  }
  // A group of matmuls sharing one input (q/k/v, gate/up): one Quantize before, one Dequantize after each.
  void matmul_group(std::initializer_list<std::pair<const char*, std::uint64_t>> outs, std::uint64_t tokens, std::uint64_t in) {
    if (quantized) elementwise("quantize", OpKind::kQuantize, tokens * in);
    for (const auto& [name, out] : outs) {
      OpDesc o{name, OpKind::kMatMul};
      o.m = tokens, o.k = in, o.n = out;
      o.weight_params = in * out;
      ops.push_back(o);
      if (quantized) elementwise(std::string(name) + "_dequantize", OpKind::kDequantize, tokens * out);
    }
  }
};

}  // namespace

double op_flops(const OpDesc& op) {
  const auto mul = [](std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
    return static_cast<double>(a) * static_cast<double>(b) * static_cast<double>(c) * static_cast<double>(d);
  };
  switch (op.kind) {
    case OpKind::kMatMul:
    case OpKind::kAttnScores:
    case OpKind::kAttnContext:
    case OpKind::kQkEstimate: return 2.0 * mul(op.batch, op.m, op.k, op.n);
    case OpKind::kTopK: return static_cast<double>(op.batch * op.m * op.n);
    case OpKind::kSparseAttn: return 4.0 * static_cast<double>(op.k * op.elements);
    case OpKind::kBlockSparseAttn: return 4.0 * mul(op.batch, op.m, op.k, op.n) * static_cast<double>(op.weight_params) / 1e6;
    case OpKind::kNorm: return 5.0 * static_cast<double>(op.elements);        // square, sum, rsqrt, scale, weight
    case OpKind::kRope: return 6.0 * static_cast<double>(op.elements);        // two multiplies, an add, sin/cos table
    case OpKind::kSoftmax: return 5.0 * static_cast<double>(op.elements);     // max, sub, exp, sum, divide
    case OpKind::kActivation: return 8.0 * static_cast<double>(op.elements);  // exp/erf-based
    case OpKind::kQuantize:
    case OpKind::kDequantize: return 2.0 * static_cast<double>(op.elements);
    case OpKind::kBiasAdd:
    case OpKind::kElementwise:
    case OpKind::kPipelinePlan: return static_cast<double>(op.elements);
  }
  return 0.0;
}

double op_weight_bytes(const OpDesc& op, double bits_per_weight) {
  return static_cast<double>(op.weight_params) * bits_per_weight / 8.0;
}

std::vector<OpDesc> decoder_layer_ops(const ModelConfig& m, const LayerShape& s, bool quantized_npu_graph) {
  Builder b{{}, quantized_npu_graph};
  // Matmuls and elementwise ops see every sequence's rows; attention runs per sequence and head.
  const std::uint64_t t = s.tokens * s.sequences, h = m.hidden, q_dim = m.heads * m.head_dim, kv_dim = m.kv_heads * m.head_dim;
  b.elementwise("input_norm", OpKind::kNorm, t * h);
  b.matmul_group({{"q_proj", q_dim}, {"k_proj", kv_dim}, {"v_proj", kv_dim}}, t, h);
  if (m.attention_bias) {
    b.elementwise("q_bias", OpKind::kBiasAdd, t * q_dim);
    b.elementwise("k_bias", OpKind::kBiasAdd, t * kv_dim);
    b.elementwise("v_bias", OpKind::kBiasAdd, t * kv_dim);
  }
  b.elementwise("rope_q", OpKind::kRope, t * q_dim);
  b.elementwise("rope_k", OpKind::kRope, t * kv_dim);
  OpDesc scores{"attn_scores", OpKind::kAttnScores};
  scores.m = s.tokens, scores.k = m.head_dim, scores.n = s.context, scores.batch = m.heads * s.sequences;
  b.ops.push_back(scores);
  b.elementwise("softmax", OpKind::kSoftmax, m.heads * t * s.context);  // t = tokens x sequences
  OpDesc context{"attn_context", OpKind::kAttnContext};
  context.m = s.tokens, context.k = s.context, context.n = m.head_dim, context.batch = m.heads * s.sequences;
  b.ops.push_back(context);
  b.matmul_group({{"o_proj", h}}, t, q_dim);
  if (m.output_bias) b.elementwise("o_bias", OpKind::kBiasAdd, t * h);
  b.elementwise("attn_residual", OpKind::kElementwise, t * h);
  b.elementwise("post_norm", OpKind::kNorm, t * h);
  if (m.gated_mlp) {
    b.matmul_group({{"gate_proj", m.intermediate}, {"up_proj", m.intermediate}}, t, h);
    if (m.mlp_bias) {
      b.elementwise("gate_bias", OpKind::kBiasAdd, t * m.intermediate);
      b.elementwise("up_bias", OpKind::kBiasAdd, t * m.intermediate);
    }
    b.elementwise("act", OpKind::kActivation, t * m.intermediate);
    b.elementwise("gate_mul", OpKind::kElementwise, t * m.intermediate);
  } else {
    b.matmul_group({{"fc1", m.intermediate}}, t, h);
    if (m.mlp_bias) b.elementwise("fc1_bias", OpKind::kBiasAdd, t * m.intermediate);
    b.elementwise("act", OpKind::kActivation, t * m.intermediate);
  }
  b.matmul_group({{m.gated_mlp ? "down_proj" : "fc2", h}}, t, m.intermediate);
  if (m.mlp_bias) b.elementwise(m.gated_mlp ? "down_bias" : "fc2_bias", OpKind::kBiasAdd, t * h);
  b.elementwise("mlp_residual", OpKind::kElementwise, t * h);
  return b.ops;
}

std::vector<std::int32_t> op_inputs(const std::vector<OpDesc>& ops) {
  std::vector<std::int32_t> in(ops.size());
  std::int32_t group_first = -1;  // first matmul of the group being read, if any
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto self = static_cast<std::int32_t>(i);
    in[i] = self - 1;
    const OpDesc& op = ops[i];
    if (op.kind != OpKind::kMatMul) {
      // A Dequantize keeps the group open for the next sibling; anything else ends it.
      if (op.kind != OpKind::kDequantize || i == 0 || ops[i - 1].kind != OpKind::kMatMul) group_first = -1;
      continue;
    }
    if (group_first >= 0) {
      const OpDesc& first = ops[static_cast<std::size_t>(group_first)];
      if (first.m == op.m && first.k == op.k && first.batch == op.batch) {
        in[i] = in[static_cast<std::size_t>(group_first)];
        continue;
      }
    }
    group_first = self;
  }
  return in;
}

std::vector<OpDesc> head_ops(const ModelConfig& m, std::uint64_t tokens, bool quantized_npu_graph) {
  Builder b{{}, quantized_npu_graph};
  b.elementwise("final_norm", OpKind::kNorm, tokens * m.hidden);
  b.matmul_group({{"lm_head", m.vocab}}, tokens, m.hidden);
  return b.ops;
}

}  // namespace socsim::model
