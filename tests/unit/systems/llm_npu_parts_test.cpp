// llm-npu's parts against hand counts: layer pruning, FFN-first placement, graph memory with and
// without chunk sharing, the chunk DAG's dependencies.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/hw/soc_spec.h"
#include "sim/systems/llm_npu/chunk_dag.h"
#include "sim/systems/llm_npu/graph_memory.h"
#include "sim/systems/llm_npu/npu_placement.h"
#include "sim/systems/llm_npu/outlier_plan.h"

namespace socsim::systems::llm_npu {
namespace {

model::ModelConfig tiny() {
  model::ModelConfig m;
  m.id = "tiny";
  m.hidden = 64, m.intermediate = 128, m.layers = 2, m.heads = 4, m.kv_heads = 2, m.head_dim = 16, m.vocab = 100;
  m.max_context = 4096;
  return m;
}

TEST(LlmNpuOutliers, PruningKeepsTheLayersNearBothEnds) {
  // 24 layers, prune 0.85: keep ceil(0.15 * 24) = 4: importance 1, 1 (layers 0, 23), 1/2, 1/2 (1, 22).
  const auto kept = shadow_layers(24, 0.85);
  std::vector<std::size_t> idx;
  for (std::size_t l = 0; l < kept.size(); ++l) {
    if (kept[l]) idx.push_back(l);
  }
  EXPECT_EQ(idx, (std::vector<std::size_t>{0, 1, 22, 23}));
  const auto all = shadow_layers(24, 0.0);
  EXPECT_EQ(std::count(all.begin(), all.end(), true), 24);
  const auto none = shadow_layers(24, 1.0);
  EXPECT_EQ(std::count(none.begin(), none.end(), true), 0);
}

TEST(LlmNpuOutliers, ShadowMatmulAndColdRows) {
  Options o;  // 10 outlier channels, 80% in hot channels
  const auto op = shadow_matmul(256, o.outlier_channels, 2560);
  EXPECT_EQ(op.m, 256u);
  EXPECT_EQ(op.k, 10u);
  EXPECT_EQ(op.n, 2560u);
  EXPECT_EQ(cold_row_bytes(o, 2560), 2u * 2560u);  // ceil(0.2 * 10) = 2 rows of 2560 INT8 weights
  o.hot_hit = 1.0;
  EXPECT_EQ(cold_row_bytes(o, 2560), 0u);
}

TEST(LlmNpuPlacement, FfnFirstWhenWeightsExceedTheAddressSpace) {
  auto m = tiny();
  // One layer: attention 64*(64+32+32) + 64*64 = 12288 B, FFN 3*64*128 = 24576 B.
  EXPECT_EQ(attention_weight_bytes(m), 12288u);
  EXPECT_EQ(ffn_weight_bytes(m), 24576u);
  auto p = place_on_npu(m, 1 << 20);
  EXPECT_TRUE(p.all_on_npu());
  // 60000 B: both FFNs (49152), then one attention block (12288 > 10848 left: none).
  p = place_on_npu(m, 60000);
  EXPECT_EQ(p.ffn, (std::vector<bool>{true, true}));
  EXPECT_EQ(p.attention, (std::vector<bool>{false, false}));
  EXPECT_EQ(p.npu_weight_bytes, 49152u);
  EXPECT_EQ(p.cpu_weight_bytes, 24576u);
  // 30000 B: the first FFN only, then nothing else fits (5424 left).
  p = place_on_npu(m, 30000);
  EXPECT_EQ(p.ffn, (std::vector<bool>{true, false}));
  EXPECT_EQ(p.sessions, 1u);
}

TEST(LlmNpuPlacement, WholeLayersOverSeveralSessionsBeforeFfnFirst) {
  auto m = tiny();  // two layers of 36864 B (attention 12288 + FFN 24576)
  // 40000 B per session: one layer each, two sessions hold the model.
  auto p = place_on_npu(m, 40000, 2);
  EXPECT_TRUE(p.all_on_npu());
  EXPECT_EQ(p.sessions, 2u);
  EXPECT_EQ(p.npu_weight_bytes, 73728u);
  EXPECT_EQ(p.cpu_weight_bytes, 0u);
  // 80000 B: both layers in one session.
  EXPECT_EQ(place_on_npu(m, 80000, 4).sessions, 1u);
  // One session of 40000 B cannot hold both layers: FFN first, as before sessions.
  p = place_on_npu(m, 40000, 1);
  EXPECT_EQ(p.ffn, (std::vector<bool>{true, false}));  // 24576, then 15424 left < 24576
  EXPECT_EQ(p.attention, (std::vector<bool>{true, false}));  // 12288 fits in 15424, the second does not
  EXPECT_EQ(p.sessions, 1u);
  // 30000 B sessions cannot hold a whole layer (36864): FFN first over the sessions, one FFN
  // each, then the attention blocks in what is left of the last (5424 B: none).
  p = place_on_npu(m, 30000, 2);
  EXPECT_EQ(p.ffn, (std::vector<bool>{true, true}));
  EXPECT_EQ(p.attention, (std::vector<bool>{false, false}));
  EXPECT_EQ(p.sessions, 2u);
  EXPECT_EQ(p.cpu_weight_bytes, 24576u);
}

TEST(LlmNpuGraphMemory, SharingHoldsOneGraphPerLayerPosition) {
  const auto m = tiny();
  Options o;
  o.chunk = 32;
  runtime::Plan plan;
  const auto dag = build_prefill_dag(plan, o, m, place_on_npu(m, 1 << 20), shadow_layers(2, 0.0), 64, 1);
  EXPECT_EQ(dag.chunks, 2u);
  EXPECT_EQ(dag.npu_graphs.size(), 8u);  // 4 per layer: qkv, o, gate/up, down
  const auto npu = hw::load_soc_spec(std::string(SOCSIM_SOURCE_DIR) + "/soc_configs/snapdragon-8gen3.yaml", {}).npu;
  const auto mem = graph_memory(plan, npu);
  // Per layer, for 32 stored rows (buffers m k INT8 in + 4 m n FP32 out per matmul):
  //   qkv    weights 64*64 + 2*64*32 = 8192;  buffers (2048 + 8192) + 2 (2048 + 4096) = 22528
  //   o      weights 4096;                    buffers 10240
  //   gate/up weights 2*64*128 = 16384;       buffers 2 (2048 + 16384) = 36864
  //   down   weights 8192;                    buffers 4096 + 8192 = 12288
  // 32 rows are half an 8h8w crouton, so the best shape ([8, 4] or [4, 8]) stores 64: twice that.
  EXPECT_EQ(mem.weight_bytes, 2u * 36864u);
  EXPECT_EQ(mem.buffer_bytes, 2u * 2u * 81920u);
  EXPECT_EQ(mem.shared_bytes(), 2u * 36864u + 4u * 81920u);
  EXPECT_EQ(mem.unshared_bytes(dag.chunks), 2u * mem.shared_bytes());
  // Graphs fed [32, 1, hidden] pad each row to a whole crouton width: 32 x 8 = 256 stored rows.
  for (auto& j : plan.jobs) j.npu_kernels.graph_layout = kernels::GraphActivationLayout::kTokensAsHeight;
  EXPECT_EQ(graph_memory(plan, npu).buffer_bytes, 8u * 2u * 81920u);
  EXPECT_EQ(graph_memory(plan, npu).weight_bytes, mem.weight_bytes);
}

TEST(LlmNpuDag, IntraAndCrossChunkDependencies) {
  const auto m = tiny();
  Options o;
  o.chunk = 32;
  runtime::Plan plan;
  const auto dag = build_prefill_dag(plan, o, m, place_on_npu(m, 1 << 20), shadow_layers(2, 0.0), 80, 1);
  ASSERT_EQ(dag.chunks, 3u);  // 32 + 32 + 16 real rows
  // Per layer 4 NPU subgraphs between float ones (the last float one of a layer fused with the
  // first of the next): 1 + 2 * 8 = 17 main subgraphs per chunk; the last chunk adds the head to
  // its final float subgraph.
  EXPECT_EQ(dag.subgraphs_per_chunk, 17u);
  EXPECT_EQ(dag.npu_subgraphs_per_chunk, 8u);
  EXPECT_EQ(dag.shadow_jobs, 3u * 8u);  // every NPU subgraph of every chunk (no layer pruned)
  // Find the attention subgraphs of layer 0 in each chunk.
  std::vector<std::uint32_t> attn;
  for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
    const auto& ops = plan.jobs[j].ops;
    if (plan.jobs[j].name.find("shadow") == std::string::npos &&
        std::any_of(ops.begin(), ops.end(), [](const model::GraphOp& g) { return g.op.kind == model::OpKind::kAttnScores && g.layer == 0; })) {
      attn.push_back(j);
    }
  }
  ASSERT_EQ(attn.size(), 3u);
  const auto& deps2 = plan.jobs[attn[2]].deps;
  // Chunk 2's attention waits for the keys and values of chunks 0 and 1 (§3.4: G[e][j-1] for
  // e <= i), written by the jobs before their attention (RoPE), not for their attention: the
  // chunks' attention may run side by side.
  const auto kv_of = [&](std::uint32_t a) {
    EXPECT_EQ(plan.jobs[a - 1].name, plan.jobs[a].name + ".kv");
    EXPECT_EQ(plan.jobs[a].ops.front().op.kind, model::OpKind::kAttnScores);
    return a - 1;
  };
  EXPECT_EQ(deps2, (std::vector<std::uint32_t>{kv_of(attn[2]), kv_of(attn[0]), kv_of(attn[1])}));
  EXPECT_EQ(plan.jobs[kv_of(attn[0])].ops.back().op.kind, model::OpKind::kRope);  // the keys, roped
  // Every job depends only on earlier jobs; NPU jobs are on the npu lane, all others on the float lane.
  for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
    for (auto d : plan.jobs[j].deps) EXPECT_LT(d, j);
    EXPECT_EQ(plan.jobs[j].lane, plan.jobs[j].unit == kernels::Unit::kNpu ? "npu" : "float");
  }
  // The float unit computes the last chunk's 16 real rows; its NPU subgraphs the padded 32.
  for (const auto& g : plan.jobs[attn[2]].ops) {
    if (g.op.kind == model::OpKind::kAttnScores) {
      EXPECT_EQ(g.op.m, 16u);
      EXPECT_EQ(g.op.n, 80u);  // keys: 64 cached + 16
    }
  }
  const auto& qkv = plan.jobs[attn[2] - 3];  // the NPU q/k/v subgraph (its shadow and the keys' job sit between)
  ASSERT_EQ(qkv.unit, kernels::Unit::kNpu) << qkv.name;
  EXPECT_EQ(qkv.ops.front().op.m, 32u);
}

// Whatever the placement, every job that attends over a layer's keys runs after each earlier
// chunk's job that ropes that layer's keys (a review found a float subgraph of several CPU layers
// cut only at its first attention: later layers read keys not yet written).
TEST(LlmNpuDag, AttentionRunsAfterEveryKeyItReads) {
  auto m = tiny();
  m.layers = 4;
  Options o;
  o.chunk = 32;
  for (const std::uint64_t space : {std::uint64_t{1} << 30, std::uint64_t{0}, std::uint64_t{60'000}}) {
    runtime::Plan plan;
    const auto place = place_on_npu(m, space);
    build_prefill_dag(plan, o, m, place, shadow_layers(4, 0.0), 80, 1);
    // (chunk, layer) -> the job roping its keys.
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint32_t> roped;
    for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
      for (const auto& g : plan.jobs[j].ops) {
        if (g.op.name == "rope_k") roped[{g.step, g.layer}] = j;
      }
    }
    const auto before = [&](std::uint32_t a, std::uint32_t b) {  // a is b or one of its ancestors
      std::vector<std::uint32_t> stack{b};
      std::set<std::uint32_t> seen;
      while (!stack.empty()) {
        const auto x = stack.back();
        stack.pop_back();
        if (x == a) return true;
        if (!seen.insert(x).second) continue;
        for (auto d : plan.jobs[x].deps) stack.push_back(d);
      }
      return false;
    };
    std::size_t checked = 0, several = 0;
    for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
      std::size_t attentions = 0;
      for (const auto& g : plan.jobs[j].ops) {
        if (g.op.kind != model::OpKind::kAttnScores) continue;
        ++attentions;
        for (std::uint64_t e = 0; e < g.step; ++e) {
          EXPECT_TRUE(before(roped.at({e, g.layer}), j)) << plan.jobs[j].name << " reads chunk " << e << "'s keys of layer " << g.layer;
          ++checked;
        }
      }
      several += attentions > 1 ? 1 : 0;
    }
    EXPECT_GT(checked, 0u);
    if (space == 0) {
      EXPECT_GT(several, 0u) << "expected a float job of several layers' attention";
    }
  }
}

// Shadow jobs and the merges that take their partial sums, in a plan.
std::pair<std::size_t, std::size_t> shadows_and_merges(const runtime::Plan& plan) {
  std::size_t shadows = 0, merges = 0;
  for (const auto& j : plan.jobs) {
    shadows += j.name.find(".shadow.") != std::string::npos ? 1 : 0;
    merges += static_cast<std::size_t>(std::count_if(j.ops.begin(), j.ops.end(), [](const model::GraphOp& g) { return g.op.name == "outlier_merge"; }));
  }
  return {shadows, merges};
}

TEST(LlmNpuDag, NoOutlierChannelNoShadowNorMerge) {
  const auto m = tiny();
  Options o;
  o.chunk = 32;
  runtime::Plan with, without;
  const auto a = build_prefill_dag(with, o, m, place_on_npu(m, 1 << 20), shadow_layers(2, 0.0), 64, 1);
  EXPECT_EQ(shadows_and_merges(with), std::make_pair(std::size_t{16}, std::size_t{16}));  // 2 chunks x 8 NPU subgraphs
  EXPECT_EQ(a.shadow_jobs, 16u);
  // llm_npu.outlier_channels=0: the layers keep their shadow path, but no chunk has an outlier to
  // extract, compute or add (they had zero-work jobs and their merges).
  o.outlier_channels = 0;
  const auto b = build_prefill_dag(without, o, m, place_on_npu(m, 1 << 20), shadow_layers(2, 0.0), 64, 1);
  EXPECT_EQ(shadows_and_merges(without), std::make_pair(std::size_t{0}, std::size_t{0}));
  EXPECT_EQ(b.shadow_jobs, 0u);
  EXPECT_EQ(without.jobs.size(), with.jobs.size() - 16);
}

TEST(LlmNpuDag, InOrderChainsTheChunks) {
  const auto m = tiny();
  Options o;
  o.chunk = 32;
  o.ooe = false;
  runtime::Plan plan;
  build_prefill_dag(plan, o, m, place_on_npu(m, 1 << 20), shadow_layers(2, 1.0), 64, 1);
  // No shadows (all pruned): the main subgraphs form one chain in program order.
  for (std::uint32_t j = 1; j < plan.jobs.size(); ++j) {
    const auto& d = plan.jobs[j].deps;
    EXPECT_NE(std::find(d.begin(), d.end(), j - 1), d.end()) << plan.jobs[j].name;
  }
}

}  // namespace
}  // namespace socsim::systems::llm_npu
