// The runtime's op lowering is the kernels' `lower` faces (one source of costs): ops of the model
// graph lowered through sim/runtime/op_lowering.h must equal the face for the same shape, so a
// future divergence fails here.
#include "sim/runtime/op_lowering.h"
#include "sim/runtime/lowering/npu_step_coalescing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/attention/attention_decode_lower.h"
#include "kernels/attention/attention_lower.h"
#include "kernels/attention/flash_lower.h"
#include "kernels/attention/int8_attention.h"
#include "kernels/elementwise/elementwise_lower.h"
#include "kernels/elementwise/relu_lower.h"
#include "kernels/elementwise/rope.h"
#include "kernels/gemm/gemm_lower.h"
#include "kernels/gemm/gemm_lower_npu.h"
#include "kernels/gemm/gemv_lower.h"
#include "kernels/gemm/gemv_lower_npu.h"
#include "kernels/quant/quant_lower.h"
#include "kernels/topk/topk.h"
#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/lowering/attention_lowering.h"

namespace socsim::runtime {
namespace {

using kernels::NpuStep;
using model::OpKind;

const std::string kRoot = SOCSIM_SOURCE_DIR;

hw::SocSpec soc_8gen3() {
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  return hw::parse_soc_spec(tree);
}
model::ModelConfig model_of(const std::string& id) { return model::load_model_config(kRoot + "/models/" + id + ".json"); }
kernels::RopeParams rope(const model::ModelConfig& m) { return {m.rope_theta, m.rotary_fraction, m.rope_scaling}; }

model::OpDesc find_op(const std::vector<model::OpDesc>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const model::OpDesc& o) { return o.name == name; });
  if (it == ops.end()) throw std::logic_error("no op " + name);
  return *it;
}

// Names differ only by the op's prefix: "<op>/<kernel's name>".
void expect_named(const std::string& lowered, const std::string& op, const std::string& kernel) {
  EXPECT_EQ(lowered, op + "/" + kernel);
}

void expect_same(const kernels::CpuWork& got, const kernels::CpuWork& want, const std::string& op) {
  ASSERT_EQ(got.tasks.size(), want.tasks.size()) << op;
  EXPECT_EQ(got.threads, want.threads) << op;
  for (std::size_t i = 0; i < got.tasks.size(); ++i) {
    const auto &g = got.tasks[i], &w = want.tasks[i];
    expect_named(g.name, op, w.name);
    EXPECT_DOUBLE_EQ(g.ops, w.ops) << g.name;
    EXPECT_EQ(g.dtype, w.dtype) << g.name;
    EXPECT_EQ(g.dram_bytes, w.dram_bytes) << g.name;
    EXPECT_EQ(g.rows, w.rows) << g.name;
  }
}

void expect_same(const kernels::GpuWork& got, const kernels::GpuWork& want, const std::string& op) {
  ASSERT_EQ(got.kernels.size(), want.kernels.size()) << op;
  for (std::size_t i = 0; i < got.kernels.size(); ++i) {
    const auto &g = got.kernels[i], &w = want.kernels[i];
    expect_named(g.name, op, w.name);
    EXPECT_DOUBLE_EQ(g.flops, w.flops) << g.name;
    EXPECT_EQ(g.dtype, w.dtype) << g.name;
    EXPECT_EQ(g.dram_bytes, w.dram_bytes) << g.name;
    EXPECT_EQ(g.rows, w.rows) << g.name;
    EXPECT_EQ(g.streaming, w.streaming) << g.name;
  }
}

void expect_same_step(const NpuStep& g, const NpuStep& w, const std::string& op) {
  expect_named(g.name, op, w.name);
  EXPECT_EQ(g.kind, w.kind) << g.name;
  EXPECT_EQ(g.gemm.m, w.gemm.m) << g.name;
  EXPECT_EQ(g.gemm.k, w.gemm.k) << g.name;
  EXPECT_EQ(g.gemm.n, w.gemm.n) << g.name;
  EXPECT_EQ(g.gemm.dtype, w.gemm.dtype) << g.name;
  EXPECT_EQ(g.home, w.home) << g.name;
  EXPECT_DOUBLE_EQ(g.packets, w.packets) << g.name;
  EXPECT_EQ(g.threads, w.threads) << g.name;
  EXPECT_EQ(g.bytes, w.bytes) << g.name;
  EXPECT_EQ(g.transfers, w.transfers) << g.name;
}

// The face's work without its graph call, whose node count is returned.
std::uint32_t drop_graph_call(kernels::NpuWork& w) {
  std::uint32_t nodes = 0;
  std::erase_if(w.steps, [&](const NpuStep& s) {
    if (s.kind != NpuStep::Kind::kGraphCall) return false;
    nodes += s.graph_ops;
    return true;
  });
  return nodes;
}

// The runtime's op equals the face (graph call left out, its nodes in graph_nodes), with each
// engine's steps merged as every lowered op's are (npu_step_coalescing.h; all these on 8 Gen 3).
void expect_same(const NpuOpWork& got, kernels::NpuWork want, const std::string& op) {
  const std::uint32_t nodes = drop_graph_call(want);
  want = lowering::coalesce_sequential_steps(std::move(want), soc_8gen3().npu);
  EXPECT_EQ(got.graph_nodes, nodes == 0 ? 1u : nodes) << op;
  ASSERT_EQ(got.work.steps.size(), want.steps.size()) << op;
  for (std::size_t i = 0; i < want.steps.size(); ++i) expect_same_step(got.work.steps[i], want.steps[i], op);
}

struct Qwen {
  model::ModelConfig m = model_of("qwen2-1.5b");  // hidden 1536, 12 heads / 2 kv heads of 128, FFN 8960, QKV bias
  std::vector<model::OpDesc> prefill = model::decoder_layer_ops(m, {256, 256, 1}, false);
  std::vector<model::OpDesc> decode = model::decoder_layer_ops(m, {1, 300, 1}, false);
  hw::SocSpec soc = soc_8gen3();
};

TEST(OpLowering, CpuOpsAreTheKernelFaces) {
  Qwen q;
  const auto& m = q.m;
  // Matmuls: Q4_0 GEMM with the job's threads; one row is the GEMV face.
  const auto qp = find_op(q.prefill, "q_proj");
  expect_same(lower_op_cpu(qp, m, Precision::kW4A16, 6), kernels::lower_gemm_w4a16_cpu({256, 1536, 1536}, kernels::BlockFormat::kQ4_0, 6),
              "q_proj");
  const auto down = find_op(q.decode, "down_proj");
  expect_same(lower_op_cpu(down, m, Precision::kW8A8, 3), kernels::lower_gemv_cpu({1, 8960, 1536}, {kernels::GemmWeights::kI8}, 3),
              "down_proj");
  EXPECT_EQ(lower_op_cpu(down, m, Precision::kW8A8, 3).tasks[0].rows, 0u);  // the vector path: no row padding
  // Per-group: the GEMM and its float reduction.
  expect_same(lower_op_cpu(qp, m, Precision::kW8A8Group, 2),
              kernels::lower_gemm_i8_per_group_cpu({256, 1536, 1536}, 128, 2), "q_proj");
  // Norm, activation, rope, residual add, bias add (the residual-add face), sample (top-1).
  expect_same(lower_op_cpu(find_op(q.prefill, "input_norm"), m, Precision::kFp32, 6),
              kernels::lower_elementwise_cpu(kernels::ElementwiseOp::kRmsNorm, {256, 1536}, 6), "input_norm");
  expect_same(lower_op_cpu(find_op(q.prefill, "act"), m, Precision::kFp32, 6),
              kernels::lower_elementwise_cpu(kernels::ElementwiseOp::kSilu, {256, 8960}, 6), "act");
  expect_same(lower_op_cpu(find_op(q.prefill, "rope_k"), m, Precision::kFp32, 4), kernels::lower_rope_cpu({256, 2, 128}, rope(m), 4),
              "rope_k");
  expect_same(lower_op_cpu(find_op(q.prefill, "rope_q"), m, Precision::kFp32, 4), kernels::lower_rope_cpu({256, 12, 128}, rope(m), 4),
              "rope_q");
  expect_same(lower_op_cpu(find_op(q.prefill, "mlp_residual"), m, Precision::kFp32, 1),
              kernels::lower_elementwise_cpu(kernels::ElementwiseOp::kResidualAdd, {1, 256 * 1536}, 1), "mlp_residual");
  expect_same(lower_op_cpu(find_op(q.prefill, "k_bias"), m, Precision::kFp32, 1),
              kernels::lower_elementwise_cpu(kernels::ElementwiseOp::kResidualAdd, {1, 256 * 256}, 1), "k_bias");
  model::OpDesc sample{"sample", OpKind::kElementwise};
  sample.elements = m.vocab * 2;
  expect_same(lower_op_cpu(sample, m, Precision::kFp32, 1), kernels::lower_topk_cpu({2, m.vocab, m.vocab - 1, 4}, 1, 1), "sample");
  // Quantize / dequantize (the W8A8 NPU graph form) with a static scale.
  const auto qops = model::decoder_layer_ops(m, {64, 64, 1}, true);
  expect_same(lower_op_cpu(find_op(qops, "quantize"), m, Precision::kFp32, 2), kernels::lower_quantize_cpu(64 * 1536, false, 2),
              "quantize");
  expect_same(lower_op_cpu(find_op(qops, "o_proj_dequantize"), m, Precision::kFp32, 2), kernels::lower_dequantize_cpu(64 * 1536, 2),
              "o_proj_dequantize");
}

TEST(OpLowering, ActivationNormAndRopeFollowTheModel) {
  const auto opt = model_of("opt-6.7b");  // LayerNorm, ReLU, plain MLP
  const auto ops = model::decoder_layer_ops(opt, {8, 8, 1}, false);
  expect_same(lower_op_cpu(find_op(ops, "act"), opt, Precision::kFp32, 2), kernels::lower_relu_cpu({8, opt.intermediate}, 2), "act");
  expect_same(lower_op_cpu(find_op(ops, "post_norm"), opt, Precision::kFp32, 2),
              kernels::lower_elementwise_cpu(kernels::ElementwiseOp::kLayerNorm, {8, opt.hidden}, 2), "post_norm");
  const auto phi = model_of("phi-2");  // gelu_new: the tanh GELU
  const auto pops = model::decoder_layer_ops(phi, {3, 3, 1}, false);
  expect_same(lower_op_cpu(find_op(pops, "act"), phi, Precision::kFp32, 1),
              kernels::lower_elementwise_cpu(kernels::ElementwiseOp::kGeluTanh, {3, phi.intermediate}, 1), "act");
  // Partial rotary: phi-2 rotates 0.4 of its 80 head dims (32).
  const kernels::RopeParams partial{phi.rope_theta, 0.4, {}};
  expect_same(lower_op_cpu(find_op(pops, "rope_q"), phi, Precision::kFp32, 1), kernels::lower_rope_cpu({3, 32, 80}, partial, 1), "rope_q");
  const auto npu = soc_8gen3().npu;
  expect_same(lower_op_npu(find_op(pops, "rope_k"), phi, Precision::kFp16, npu),
              kernels::lower_rope_npu(npu, {3, 32, 80}, partial, npu.hvx.contexts), "rope_k");
}

TEST(OpLowering, GpuOpsAreTheKernelFaces) {
  Qwen q;
  const auto& m = q.m;
  expect_same(lower_op_gpu(find_op(q.prefill, "gate_proj"), m, Precision::kW4A16),
              kernels::lower_gemm_w4a16_gpu({256, 1536, 8960}, kernels::BlockFormat::kQ4_0), "gate_proj");
  const auto gv = lower_op_gpu(find_op(q.decode, "gate_proj"), m, Precision::kW4A16);
  expect_same(gv, kernels::lower_gemv_gpu({1, 1536, 8960}, {kernels::GemmWeights::kBlock, 128, kernels::BlockFormat::kQ4_0}), "gate_proj");
  EXPECT_TRUE(gv.kernels[0].streaming);
  expect_same(lower_op_gpu(find_op(q.prefill, "o_proj"), m, Precision::kFp16), kernels::lower_gemm_f16_gpu({256, 1536, 1536}), "o_proj");
  expect_same(lower_op_gpu(find_op(q.prefill, "post_norm"), m, Precision::kW4A16),
              kernels::lower_elementwise_gpu(kernels::ElementwiseOp::kRmsNorm, {256, 1536}, hw::DType::kFp16), "post_norm");
  expect_same(lower_op_gpu(find_op(q.prefill, "gate_mul"), m, Precision::kFp32),
              kernels::lower_elementwise_gpu(kernels::ElementwiseOp::kGateMul, {1, 256 * 8960}, hw::DType::kFp32), "gate_mul");
  expect_same(lower_op_gpu(find_op(q.decode, "rope_q"), m, Precision::kW4A16),
              kernels::lower_rope_gpu({1, 12, 128}, rope(m), hw::DType::kFp16), "rope_q");
  // The quantization glue (llm.npu's GPU-NPU variant runs it on the GPU).
  const auto qops = model::decoder_layer_ops(m, {64, 64, 1}, true);
  expect_same(lower_op_gpu(find_op(qops, "quantize"), m, Precision::kFp16), kernels::lower_quantize_gpu(64 * 1536), "quantize");
}

TEST(OpLowering, NpuOpsAreTheKernelFacesWithoutTheirGraphCalls) {
  Qwen q;
  const auto& m = q.m;
  const auto& npu = q.soc.npu;
  const auto qp = find_op(q.prefill, "q_proj");
  // W8A8: the one-node graph of the face is the job's graph call.
  expect_same(lower_op_npu(qp, m, Precision::kW8A8, npu), kernels::lower_gemm_i8_npu({256, 1536, 1536}), "q_proj");
  // Per-group: 1536 / 128 = 12 groups, 4*12 - 1 = 47 nodes.
  const auto pg = lower_op_npu(qp, m, Precision::kW8A8Group, npu);
  EXPECT_EQ(pg.graph_nodes, 47u);
  expect_same(pg, kernels::lower_gemm_i8_per_group_npu({256, 1536, 1536}, 128, npu), "q_proj");
  // W4A16: by default the vendor runtime's static graph (one node); TTS's chunked kernel when a
  // system chooses its custom kernel. FP16 (and FP32, which the NPU runs as FP16): the HMX FP16 kernel.
  const auto down = find_op(q.prefill, "down_proj");
  const auto vendor = lower_op_npu(down, m, Precision::kW4A16, npu);
  EXPECT_EQ(vendor.graph_nodes, 1u);
  expect_same(vendor, kernels::lower_gemm_w4a16_graph_npu({256, 8960, 1536}, npu), "down_proj");
  NpuKernelChoice custom;
  custom.w4a16 = W4A16Kernel::kCustom;
  expect_same(lower_op_npu(down, m, Precision::kW4A16, npu, nullptr, custom),
              kernels::lower_gemm_w4a16_npu({256, 8960, 1536}, kernels::BlockFormat::kQ4_0, npu), "down_proj");
  expect_same(lower_op_npu(qp, m, Precision::kFp16, npu), kernels::lower_gemm_f16_hmx_npu({256, 1536, 1536}, npu), "q_proj");
  expect_same(lower_op_npu(qp, m, Precision::kFp32, npu), kernels::lower_gemm_f16_hmx_npu({256, 1536, 1536}, npu), "q_proj");
  // One row: the GEMV face (weights streamed on all HVX threads); W4A16 on the vendor runtime's
  // integer path, widened to FP16 by a custom kernel.
  const auto dp = find_op(q.decode, "up_proj");
  const kernels::GemmFormat q4{kernels::GemmWeights::kBlock, 128, kernels::BlockFormat::kQ4_0};
  expect_same(lower_op_npu(dp, m, Precision::kW4A16, npu),
              kernels::lower_gemv_npu({1, 1536, 8960}, q4, npu, kernels::GemvArithmetic::kInteger), "up_proj");
  expect_same(lower_op_npu(dp, m, Precision::kW4A16, npu, nullptr, custom),
              kernels::lower_gemv_npu({1, 1536, 8960}, q4, npu, kernels::GemvArithmetic::kFloat), "up_proj");
  expect_same(lower_op_npu(dp, m, Precision::kW8A8Group, npu),
              kernels::lower_gemv_npu({1, 1536, 8960}, {kernels::GemmWeights::kI8PerGroup, 128}, npu), "up_proj");
  // HVX ops on all contexts.
  const std::uint32_t t = npu.hvx.contexts;
  expect_same(lower_op_npu(find_op(q.prefill, "input_norm"), m, Precision::kW4A16, npu),
              kernels::lower_elementwise_npu(npu, kernels::ElementwiseOp::kRmsNorm, {256, 1536}, t), "input_norm");
  expect_same(lower_op_npu(find_op(q.prefill, "act"), m, Precision::kW4A16, npu),
              kernels::lower_elementwise_npu(npu, kernels::ElementwiseOp::kSilu, {256, 8960}, t), "act");
  expect_same(lower_op_npu(find_op(q.prefill, "rope_q"), m, Precision::kW4A16, npu),
              kernels::lower_rope_npu(npu, {256, 12, 128}, rope(m), t),
              "rope_q");
  const auto qops = model::decoder_layer_ops(m, {64, 64, 1}, true);
  expect_same(lower_op_npu(find_op(qops, "quantize"), m, Precision::kW8A8, npu), kernels::lower_quantize_npu(64 * 1536, false, npu),
              "quantize");
}

// Every op of a layer at every precision: no graph_call step in an op's NPU work (the executor
// issues one call per job), and the nodes are the kernels' own counts.
TEST(OpLowering, NpuGraphCallsAreNotDoubled) {
  Qwen q;
  for (auto p : {Precision::kFp16, Precision::kW8A8, Precision::kW8A8Group, Precision::kW4A16}) {
    for (const auto& ops : {q.prefill, q.decode}) {
      const auto shape = attention_shape_of(find_op(ops, "attn_scores"), q.m);
      std::uint32_t nodes = 0;
      for (const auto& op : ops) {
        const auto w = lower_op_npu(op, q.m, p, q.soc.npu, &shape);
        for (const auto& s : w.work.steps) EXPECT_NE(s.kind, NpuStep::Kind::kGraphCall) << s.name;
        nodes += w.graph_nodes;
      }
      // INT8 attention brings its graph of 8 nodes per head (all counted with attn_scores); the
      // per-group prefill matmuls 4 G - 1 each; every other op is one node.
      std::uint32_t want = 0;
      for (const auto& op : ops) {
        if (op.kind == OpKind::kMatMul && p == Precision::kW8A8Group && op.m > 1) {
          want += static_cast<std::uint32_t>(4 * ((op.k + 127) / 128) - 1);
        } else if (lowering::is_attention_op(op.kind) && (p == Precision::kW8A8 || p == Precision::kW8A8Group)) {
          want += op.kind == OpKind::kAttnScores ? kernels::kInt8GraphNodesPerHead * 12 : 0;
        } else {
          want += 1;
        }
      }
      EXPECT_EQ(nodes, want) << precision_name(p);
    }
  }
}

TEST(OpLowering, AttentionShapeOfTheLayer) {
  const auto m = model_of("qwen2-1.5b");
  const auto ops = model::decoder_layer_ops(m, {5, 65, 2}, false);  // 5 new tokens after 60, 2 sequences
  for (const char* name : {"attn_scores", "attn_context"}) {
    const auto s = attention_shape_of(find_op(ops, name), m);
    EXPECT_EQ(s.heads, 24u) << name;  // 12 heads x 2 sequences
    EXPECT_EQ(s.kv_heads, 4u) << name;
    EXPECT_EQ(s.head_dim, 128u) << name;
    EXPECT_EQ(s.q_len, 5u) << name;
    EXPECT_EQ(s.q_pos0, 60u) << name;
    EXPECT_EQ(s.kv_len, 65u) << name;
  }
  EXPECT_EQ(lowering::softmax_elements(attention_shape_of(find_op(ops, "attn_scores"), m)), find_op(ops, "softmax").elements);
}

TEST(OpLowering, SoftmaxNeedsItsLayersAttention) {
  Qwen q;
  const auto sm = find_op(q.prefill, "softmax");
  EXPECT_THROW(lower_op_cpu(sm, q.m, Precision::kFp32, 1), std::invalid_argument);
  const auto other = attention_shape_of(find_op(q.decode, "attn_scores"), q.m);
  EXPECT_THROW(lower_op_gpu(sm, q.m, Precision::kFp16, &other), std::invalid_argument);  // elements disagree
}

// The three ops of a layer's attention partition one kernel: scores + softmax + context is
// exactly the kernel's work, in each part only its phase.
struct Totals {
  double ops = 0;
  std::uint64_t bytes = 0, steps = 0, hmx_macs = 0, hmx_cycles = 0, transfers = 0;
  double packets = 0;
};

Totals totals(const kernels::CpuWork& w) {
  Totals t;
  for (const auto& k : w.tasks) t.ops += k.ops, t.bytes += k.dram_bytes, ++t.steps;
  return t;
}
Totals totals(const kernels::GpuWork& w) {
  Totals t;
  for (const auto& k : w.kernels) t.ops += k.flops, t.bytes += k.dram_bytes, ++t.steps;
  return t;
}
// HMX work as MACs of GEMMs staged from DRAM and cycles of GEMMs in TCM: consecutive TCM GEMMs
// of a part are merged into their cycles (npu_step_coalescing.h).
Totals totals(const kernels::NpuWork& w, const hw::NpuSpec& npu) {
  Totals t;
  for (const auto& s : w.steps) {
    if (s.kind == NpuStep::Kind::kGraphCall) continue;
    ++t.steps;
    t.packets += s.packets;
    t.bytes += s.bytes;
    t.transfers += s.transfers;
    if (s.kind == NpuStep::Kind::kHmxGemm && s.home == hw::OperandHome::kTcm) {
      t.hmx_cycles += hw::plan_hmx_gemm(npu, s.gemm, s.home).total.hmx_cycles;
    } else if (s.kind == NpuStep::Kind::kHmxGemm) {
      t.hmx_macs += s.gemm.m * s.gemm.k * s.gemm.n;
    }
    if (s.kind == NpuStep::Kind::kHmxCycles) t.hmx_cycles += s.hmx_cycles;
  }
  return t;
}
void add(Totals& a, const Totals& b) {
  a.ops += b.ops, a.bytes += b.bytes, a.steps += b.steps, a.hmx_macs += b.hmx_macs, a.packets += b.packets;
  a.hmx_cycles += b.hmx_cycles, a.transfers += b.transfers;
}
void expect_equal(const Totals& a, const Totals& b, const std::string& what) {
  EXPECT_DOUBLE_EQ(a.ops, b.ops) << what;
  EXPECT_EQ(a.bytes, b.bytes) << what;
  EXPECT_EQ(a.steps, b.steps) << what;
  EXPECT_EQ(a.hmx_macs, b.hmx_macs) << what;
  EXPECT_DOUBLE_EQ(a.packets, b.packets) << what;
}
// The parts of an NPU kernel hold its work; their consecutive steps on one engine may be merged.
void expect_same_npu_work(const Totals& parts, const Totals& kernel, const std::string& what) {
  EXPECT_EQ(parts.bytes, kernel.bytes) << what;
  EXPECT_EQ(parts.transfers, kernel.transfers) << what;
  EXPECT_EQ(parts.hmx_macs, kernel.hmx_macs) << what;
  EXPECT_EQ(parts.hmx_cycles, kernel.hmx_cycles) << what;
  EXPECT_DOUBLE_EQ(parts.packets, kernel.packets) << what;
  EXPECT_LE(parts.steps, kernel.steps) << what;
}

TEST(OpLowering, AttentionPartsSumToTheKernel) {
  Qwen q;
  const auto& npu = q.soc.npu;
  for (const auto* ops : {&q.prefill, &q.decode}) {
    const auto scores = find_op(*ops, "attn_scores"), softmax = find_op(*ops, "softmax"), context = find_op(*ops, "attn_context");
    const auto s = attention_shape_of(scores, q.m);
    const bool decode = s.q_len == 1;
    const std::string tag = decode ? " decode" : " prefill";
    {  // CPU: the FP32 full kernel (decode: as mat-vec kernels), job threads passed through.
      const auto a = lower_op_cpu(scores, q.m, Precision::kFp32, 6), b = lower_op_cpu(softmax, q.m, Precision::kFp32, 6, &s),
                 c = lower_op_cpu(context, q.m, Precision::kFp32, 6);
      const auto kernel = decode ? kernels::lower_attention_decode_cpu(s, 6) : kernels::lower_attention_cpu(s, 6);
      ASSERT_EQ(kernel.tasks.size(), 3u);
      expect_same(a, {{kernel.tasks[0]}, 6}, "attn_scores");
      expect_same(b, {{kernel.tasks[1]}, 6}, "softmax");
      expect_same(c, {{kernel.tasks[2]}, 6}, "attn_context");
      Totals sum = totals(a);
      add(sum, totals(b));
      add(sum, totals(c));
      expect_equal(sum, totals(kernel), "cpu" + tag);
    }
    {  // GPU
      const auto a = lower_op_gpu(scores, q.m, Precision::kW4A16), b = lower_op_gpu(softmax, q.m, Precision::kW4A16, &s),
                 c = lower_op_gpu(context, q.m, Precision::kW4A16);
      const auto kernel = decode ? kernels::lower_attention_decode_gpu(s) : kernels::lower_attention_gpu(s);
      expect_same(a, {{kernel.kernels.at(0)}}, "attn_scores");
      expect_same(b, {{kernel.kernels.at(1)}}, "softmax");
      expect_same(c, {{kernel.kernels.at(2)}}, "attn_context");
      Totals sum = totals(a);
      add(sum, totals(b));
      add(sum, totals(c));
      expect_equal(sum, totals(kernel), "gpu" + tag);
    }
    // NPU: FP16 flash for W4A16, the INT8 graph for W8A8.
    for (auto p : {Precision::kW4A16, Precision::kW8A8}) {
      const auto a = lower_op_npu(scores, q.m, p, npu), b = lower_op_npu(softmax, q.m, p, npu, &s), c = lower_op_npu(context, q.m, p, npu);
      const auto kernel = p == Precision::kW4A16 ? kernels::lower_flash_attention_npu(npu, s, {}, npu.hvx.contexts, hw::OperandHome::kDram)
                                                 : kernels::lower_attention_int8_npu(npu, s, npu.hvx.contexts);
      Totals sum = totals(a.work, npu);
      add(sum, totals(b.work, npu));
      add(sum, totals(c.work, npu));
      expect_same_npu_work(sum, totals(kernel, npu), std::string("npu ") + precision_name(p) + tag);
      // Each part holds only its phase: Q K^T GEMMs {rows, d, keys} (and the DMA of Q, K, V in),
      // the HVX softmax, P V GEMMs {rows, keys, d} (and the DMA of each head's O out, FP16); flash's
      // GEMMs run in TCM, merged into HMX cycles where consecutive.
      using Kind = NpuStep::Kind;
      for (const auto& st : a.work.steps) {
        EXPECT_TRUE(st.kind == Kind::kDma || st.kind == Kind::kHmxCycles || (st.kind == Kind::kHmxGemm && st.gemm.k == s.head_dim)) << st.name;
        EXPECT_EQ(st.name.rfind(p == Precision::kW4A16 ? "attn_scores/flash." : "attn_scores/attention.qk", 0), 0u) << st.name;
      }
      for (const auto& st : b.work.steps) EXPECT_EQ(st.kind, Kind::kHvx) << st.name;
      for (const auto& st : c.work.steps) {
        EXPECT_TRUE(st.kind == Kind::kDma || st.kind == Kind::kHmxCycles || (st.kind == Kind::kHmxGemm && st.gemm.n == s.head_dim))
            << st.name;
      }
      if (p == Precision::kW4A16) {  // flash from DRAM: every head's O out (FP16) with context, merged into one DMA
        std::uint64_t o_bytes = 0, o_transfers = 0;
        for (const auto& st : c.work.steps) {
          if (st.kind == Kind::kDma) o_bytes += st.bytes, o_transfers += st.transfers;
        }
        EXPECT_EQ(o_bytes, s.heads * s.q_len * s.head_dim * 2);
        EXPECT_EQ(o_transfers, s.heads);
      }
      EXPECT_FALSE(a.work.steps.empty());
      EXPECT_FALSE(b.work.steps.empty());
      EXPECT_FALSE(c.work.steps.empty());
      // Graph nodes: the INT8 kernel's graph (8 per head) with attn_scores; flash is one node per op.
      if (p == Precision::kW8A8) {
        EXPECT_EQ(a.graph_nodes, 12 * kernels::kInt8GraphNodesPerHead);
        EXPECT_EQ(b.graph_nodes + c.graph_nodes, 0u);
      } else {
        EXPECT_EQ(a.graph_nodes + b.graph_nodes + c.graph_nodes, 3u);
      }
    }
  }
}

}  // namespace
}  // namespace socsim::runtime

namespace socsim::runtime {
namespace {

TEST(OpLowering, MemoizedAttentionPartsEqualThePartsLoweredAlone) {
  // The lowering cache lowers an attention kernel once for its three ops (NpuAttentionParts):
  // each op's work, names included, is the one lowered on its own.
  Qwen q;
  const auto& npu = q.soc.npu;
  lowering::NpuAttentionParts parts(npu);
  for (const auto* ops : {&q.prefill, &q.decode}) {
    const auto scores = find_op(*ops, "attn_scores"), softmax = find_op(*ops, "softmax"), context = find_op(*ops, "attn_context");
    const auto s = attention_shape_of(scores, q.m);
    for (auto p : {Precision::kW4A16, Precision::kW8A8}) {
      for (const auto* op : {&scores, &softmax, &context}) {
        const auto alone = lower_op_npu(*op, q.m, p, npu, &s);
        const auto memo = lower_op_npu(*op, q.m, p, npu, &s, {}, &parts);
        EXPECT_EQ(memo.signature, alone.signature) << op->name;
        EXPECT_EQ(memo.graph_nodes, alone.graph_nodes) << op->name;
        ASSERT_EQ(memo.work.steps.size(), alone.work.steps.size()) << op->name;
        for (std::size_t i = 0; i < memo.work.steps.size(); ++i) EXPECT_EQ(memo.work.steps[i].name, alone.work.steps[i].name);
      }
      // All three handed over: the kernel is not kept a second time beside the caller's copies.
      EXPECT_EQ(parts.kernels_held(), 0u);
      // A part asked for again (another op of the same shape) is lowered again, the same.
      const auto again = lower_op_npu(softmax, q.m, p, npu, &s, {}, &parts);
      EXPECT_EQ(again.signature, lower_op_npu(softmax, q.m, p, npu, &s).signature);
      EXPECT_EQ(parts.kernels_held(), 1u);  // scores and context kept until taken
      EXPECT_EQ(lower_op_npu(softmax, q.m, p, npu, &s, {}, &parts).signature, again.signature);
      (void)lower_op_npu(scores, q.m, p, npu, &s, {}, &parts);
      (void)lower_op_npu(context, q.m, p, npu, &s, {}, &parts);
      EXPECT_EQ(parts.kernels_held(), 0u);
    }
  }
}

}  // namespace
}  // namespace socsim::runtime
