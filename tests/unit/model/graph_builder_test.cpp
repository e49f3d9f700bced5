#include "sim/model/graph_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace socsim::model {
namespace {

// Qwen2-0.5B dimensions (models/qwen2-0.5b.json): hidden 896, 14 heads x 64, 2 KV heads,
// intermediate 4864, 24 layers, vocab 151936, q/k/v biases, gated SiLU MLP.
ModelConfig qwen2_05b() {
  ModelConfig m;
  m.id = "qwen2-0.5b";
  m.model_type = "qwen2";
  m.hidden = 896, m.intermediate = 4864, m.layers = 24, m.heads = 14, m.kv_heads = 2, m.head_dim = 64;
  m.vocab = 151936, m.max_context = 32768, m.attention_bias = true, m.tied_embeddings = true;
  return m;
}

double matmul_flops(const std::vector<GraphOp>& ops) {
  double f = 0;
  for (const auto& g : ops) {
    if (g.op.kind == OpKind::kMatMul) f += op_flops(g.op);
  }
  return f;
}

TEST(GraphBuilder, LayerOpCounts) {
  const auto m = qwen2_05b();
  // norm, q k v, 3 biases, 2 rope, scores, softmax, context, o, residual, norm, gate, up, act,
  // mul, down, residual = 21 ops; the W8A8 NPU form adds 4 quantizes and 7 dequantizes = 32.
  EXPECT_EQ(decoder_layer_ops(m, {16, 16, 1}, false).size(), 21u);
  EXPECT_EQ(decoder_layer_ops(m, {16, 16, 1}, true).size(), 32u);
  // Whole prefill: 24 x 21 + final norm + lm_head = 506.
  EXPECT_EQ(prefill_graph(m, {256, 0, 1, false, false}, false).size(), 24u * 21 + 2);
  // Four chunks of 64: four times the layers, one head.
  EXPECT_EQ(prefill_graph(m, {256, 64, 1, false, false}, false).size(), 4u * 24 * 21 + 2);
}

// Output and MLP biases each add their projection's output once, after it, before what reads it.
TEST(GraphBuilder, OutputAndMlpBiasesFollowTheirProjections) {
  auto m = qwen2_05b();
  m.output_bias = m.mlp_bias = true;
  std::vector<std::string> names;
  for (const auto& op : decoder_layer_ops(m, {16, 16, 1}, false)) names.push_back(op.name);
  const auto after = [&](const std::string& a, const std::string& b) {
    const auto i = std::find(names.begin(), names.end(), a);
    return i != names.end() && i + 1 != names.end() && *(i + 1) == b;
  };
  EXPECT_EQ(names.size(), 21u + 4);
  EXPECT_TRUE(after("o_proj", "o_bias"));
  EXPECT_TRUE(after("up_proj", "gate_bias"));
  EXPECT_TRUE(after("up_bias", "act"));
  EXPECT_TRUE(after("down_proj", "down_bias"));
  for (const auto& op : decoder_layer_ops(m, {16, 16, 1}, false)) {
    if (op.name == "o_bias" || op.name == "down_bias") {
      EXPECT_EQ(op.elements, 16u * 896);
    }
    if (op.name == "gate_bias" || op.name == "up_bias") {
      EXPECT_EQ(op.elements, 16u * 4864);
    }
  }
  m.gated_mlp = false;
  names.clear();
  for (const auto& op : decoder_layer_ops(m, {16, 16, 1}, false)) names.push_back(op.name);
  EXPECT_TRUE(after("fc1", "fc1_bias"));
  EXPECT_TRUE(after("fc2", "fc2_bias"));
  EXPECT_TRUE(after("fc2_bias", "mlp_residual"));
}

TEST(GraphBuilder, MatmulFlopsMatchTheParameterCount) {
  const auto m = qwen2_05b();
  // Per token and layer: 2 x (896x896 q + 2x896x128 k,v + 896x896 o + 3x896x4864 mlp)
  //   = 2 x 14,909,440 = 29,818,880; the head (last row only) adds 2 x 896 x 151936.
  EXPECT_EQ(m.params_per_layer(), 14'909'440u);
  const double prompt = 100;
  const double expected = 2.0 * prompt * 24 * 14'909'440 + 2.0 * 896 * 151936;
  EXPECT_DOUBLE_EQ(matmul_flops(prefill_graph(m, {100, 0, 1, false, false}, false)), expected);
  // Chunking does not change the matmul work; padding the last chunk adds its padded rows.
  EXPECT_DOUBLE_EQ(matmul_flops(prefill_graph(m, {100, 32, 1, false, false}, false)), expected);
  const double padded = 2.0 * 128 * 24 * 14'909'440 + 2.0 * 32 * 896 * 151936;  // 4 chunks of 32, all head rows
  EXPECT_DOUBLE_EQ(matmul_flops(prefill_graph(m, {100, 32, 1, false, true}, true)), padded);
}

TEST(GraphBuilder, AttentionSeesEarlierChunksAndTheCache) {
  const auto m = qwen2_05b();
  const auto ops = prefill_graph(m, {100, 32, 1, false, false}, false);
  std::vector<std::uint64_t> keys;
  for (const auto& g : ops) {
    if (g.op.kind == OpKind::kAttnScores && g.layer == 0) keys.push_back(g.op.n);
  }
  EXPECT_EQ(keys, (std::vector<std::uint64_t>{32, 64, 96, 100}));
  // Decode step s after a prompt of 100 attends to 100 + s + 1 keys, 14 heads per sequence.
  for (std::uint64_t s : {0u, 7u}) {
    for (const auto& g : decode_step_graph(m, 100, s, 3)) {
      if (g.op.kind == OpKind::kAttnScores) {
        EXPECT_EQ(g.op.n, 100 + s + 1);
        EXPECT_EQ(g.op.batch, 14u * 3);
        EXPECT_EQ(g.op.m, 1u);
      }
      if (g.op.kind == OpKind::kMatMul) {
        EXPECT_EQ(g.op.m, 3u);  // one row per sequence
      }
    }
  }
}

TEST(GraphBuilder, KvCacheBytes) {
  // 2 (K and V) x 24 layers x 2 KV heads x 64 x 2 bytes = 12,288 B per token.
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(qwen2_05b(), 2.0), 12288.0);
}

}  // namespace
}  // namespace socsim::model

namespace socsim::model {
namespace {

// A static graph's dataflow: sibling matmuls of a group read the group's input; each Dequantize
// reads its matmul; everything else reads the op before it.
TEST(OpInputs, MatmulGroupsShareTheirInput) {
  ModelConfig m;
  m.layers = 1, m.hidden = 64, m.heads = 2, m.kv_heads = 1, m.head_dim = 32, m.intermediate = 128, m.vocab = 100;
  const auto ops = decoder_layer_ops(m, {4, 4, 1}, true);
  const auto in = op_inputs(ops);
  auto at = [&](const std::string& name) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].name == name) return static_cast<std::int32_t>(i);
    }
    ADD_FAILURE() << name;
    return -2;
  };
  const auto quantize = at("q_proj") - 1;
  EXPECT_EQ(ops[static_cast<std::size_t>(quantize)].kind, OpKind::kQuantize);
  EXPECT_EQ(in[static_cast<std::size_t>(at("q_proj"))], quantize);
  EXPECT_EQ(in[static_cast<std::size_t>(at("k_proj"))], quantize);
  EXPECT_EQ(in[static_cast<std::size_t>(at("v_proj"))], quantize);
  EXPECT_EQ(in[static_cast<std::size_t>(at("k_proj_dequantize"))], at("k_proj"));
  EXPECT_EQ(in[static_cast<std::size_t>(at("rope_q"))], at("rope_q") - 1);
  EXPECT_EQ(in[static_cast<std::size_t>(at("o_proj"))], at("o_proj") - 1);  // a group of one
  EXPECT_EQ(in[static_cast<std::size_t>(at("up_proj"))], in[static_cast<std::size_t>(at("gate_proj"))]);
  EXPECT_EQ(in[static_cast<std::size_t>(at("down_proj"))], at("down_proj") - 1);
  EXPECT_EQ(in[0], -1);
  // Without quantization the siblings follow each other directly.
  const auto plain = decoder_layer_ops(m, {4, 4, 1}, false);
  const auto pin = op_inputs(plain);
  EXPECT_EQ(pin[2], 0);  // k_proj reads input_norm, as q_proj does
  EXPECT_EQ(pin[3], 0);
}

}  // namespace
}  // namespace socsim::model
