// A decode batch on the NPU (a few rows per matmul): the vendor runtime streams the weights past
// the rows on HVX while that is faster than padding them to a whole HMX tile of rows, so a batch
// of two no longer costs six times one row (issue: npu-only decoded 18.8 tokens/s at batch 1 and
// 5.9 at batch 2), and throughput grows with the batch.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/model/model_config.h"
#include "sim/runtime/lowering/matmul_lowering.h"
#include "sim/runtime/lowering/npu_work_bound.h"
#include "tests/support/configured_system.h"

namespace socsim::runtime {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

bool streams(const kernels::NpuWork& w) {
  return std::any_of(w.steps.begin(), w.steps.end(), [](const kernels::NpuStep& s) { return s.kind == kernels::NpuStep::Kind::kHvxStream; });
}
bool uses_hmx(const kernels::NpuWork& w) {
  return std::any_of(w.steps.begin(), w.steps.end(), [](const kernels::NpuStep& s) {
    return s.kind == kernels::NpuStep::Kind::kHmxGemm || s.kind == kernels::NpuStep::Kind::kHmxCycles;
  });
}

TEST(NpuDecodeBatchLowering, AFewRowsStreamANearlyFullTileMultipliesOnHmx) {
  test::ConfiguredSystem c("snapdragon-8gen3", {});
  const hw::NpuSpec& npu = c.req.soc.npu;
  // qwen2-1.5b's gate/up projection, W4A16 through the vendor runtime.
  const auto op = [](std::uint64_t m) { return model::OpDesc{"up_proj", model::OpKind::kMatMul, m, 1536, 8960, 1, 0, 1536 * 8960}; };
  const auto one = lowering::lower_matmul_npu(op(1), Precision::kW4A16, npu);
  const auto two = lowering::lower_matmul_npu(op(2), Precision::kW4A16, npu);
  ASSERT_TRUE(streams(one));
  ASSERT_TRUE(streams(two));
  // The weights stream (and are widened) once for both rows; the multiply-adds double.
  EXPECT_EQ(two.steps.front().bytes, one.steps.front().bytes);
  EXPECT_GT(two.steps.front().packets, 1.5 * one.steps.front().packets);
  EXPECT_LT(two.steps.front().packets, 2 * one.steps.front().packets);
  // Near a whole tile of rows HMX is faster than streaming: the tiles.
  const auto many = lowering::lower_matmul_npu(op(npu.hmx.tile_rows - 1), Precision::kW4A16, npu);
  EXPECT_TRUE(uses_hmx(many));
  EXPECT_FALSE(streams(many));
  // The choice is the faster by the engines' bound, both ways.
  // The choice is never worse by the bound than either kernel: not than streaming (m rows cost
  // at most m times one row's bound) and not than the tiles at a whole tile of rows (the tile
  // path's cost does not fall with fewer rows).
  const double tile_bound = lowering::npu_engines_seconds(npu, lowering::lower_matmul_npu(op(npu.hmx.tile_rows), Precision::kW4A16, npu));
  for (std::uint64_t m = 2; m < npu.hmx.tile_rows; ++m) {
    const double got = lowering::npu_engines_seconds(npu, lowering::lower_matmul_npu(op(m), Precision::kW4A16, npu));
    EXPECT_LE(got, lowering::npu_engines_seconds(npu, one) * static_cast<double>(m) * (1 + 1e-9)) << m;
    EXPECT_LE(got, tile_bound * (1 + 1e-9)) << m;
  }
  // A strategy that keeps its rows on HMX (TTS) still gets the tiles at two rows.
  NpuKernelChoice tts;
  tts.hmx_gemv = true;
  tts.w4a16 = W4A16Kernel::kCustom;
  EXPECT_TRUE(uses_hmx(lowering::lower_matmul_npu(op(2), Precision::kW4A16, npu, tts)));
  // INT8 static graphs choose the same way (npu-naive's decode batch).
  EXPECT_TRUE(streams(lowering::lower_matmul_npu(op(2), Precision::kW8A8, npu)));
  // A per-group INT8 graph pays a node dispatch per node (4 G - 1 of them) whatever its engines
  // do, the streaming kernel one: the choice counts them. Near a whole tile of rows the tiles win
  // at no dispatch cost, and lose when each node costs a millisecond.
  hw::NpuSpec free_nodes = npu, dear_nodes = npu;
  free_nodes.graph.op_dispatch = 0;
  dear_nodes.graph.op_dispatch = kMillisecond;
  EXPECT_FALSE(streams(lowering::lower_matmul_npu(op(npu.hmx.tile_rows - 1), Precision::kW8A8Group, free_nodes)));
  EXPECT_TRUE(streams(lowering::lower_matmul_npu(op(npu.hmx.tile_rows - 1), Precision::kW8A8Group, dear_nodes)));
}

TEST(NpuDecodeBatchLowering, GraphNodeDispatchesCountTheGraphsNodesOrOne) {
  // A kernel outside a graph is a node of its own; a graph call's nodes are summed over its calls.
  kernels::NpuWork plain;
  plain.steps = {kernels::NpuStep::hvx("v", 100, 1)};
  EXPECT_EQ(lowering::graph_node_dispatches(plain), 1u);
  kernels::NpuWork graph = plain;
  graph.steps.push_back(kernels::NpuStep::graph_call("g", 7));
  graph.steps.push_back(kernels::NpuStep::graph_call("h", 4));
  EXPECT_EQ(lowering::graph_node_dispatches(graph), 11u);
  EXPECT_EQ(lowering::graph_node_dispatches(kernels::NpuWork{}), 1u);
}

TEST(NpuDecodeBatchLowering, NpuOnlyDecodeThroughputGrowsWithTheBatch) {
  double previous_tokens_per_s = 0, one_row_ms = 0;
  for (std::uint64_t batch : {1, 2, 4, 8, 16, 32}) {
    test::ConfiguredSystem c("snapdragon-8gen3", {});
    c.req.model = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");
    c.req.prompt_tokens = 64, c.req.decode_tokens = 3, c.req.batch = batch;
    c.configure("npu-only");
    const auto r = c.run();
    ASSERT_TRUE(r.decode_ms_per_token.has_value());
    const double ms = *r.decode_ms_per_token, tokens_per_s = 1000.0 * static_cast<double>(batch) / ms;
    if (batch == 1) one_row_ms = ms;
    if (batch == 2) {
      EXPECT_LT(ms, 1.5 * one_row_ms) << "a second row costs less than the first: the weights stream once";
    }
    EXPECT_GT(tokens_per_s, previous_tokens_per_s) << "batch " << batch;
    previous_tokens_per_s = tokens_per_s;
  }
}

}  // namespace
}  // namespace socsim::runtime
