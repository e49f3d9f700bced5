// The vendor runtime's graph costs (sim/hw/npu/graph_costs.h): what a graph holds, its preparation
// (build and optimize grow with its nodes and with its tensors' bytes, so a graph for a longer
// sequence costs more to prepare: #18 item 5), and one execute with and without client buffers.
#include "sim/hw/npu/graph_costs.h"

#include <gtest/gtest.h>

#include <vector>

#include "npu_test_spec.h"

namespace socsim::hw {
namespace {

using model::OpDesc;
using model::OpKind;

// One matmul (INT8 weights 64 x 128, INT8 output) and one norm of `rows` rows.
std::vector<OpDesc> layer(std::uint64_t rows) {
  return {OpDesc{"q_proj", OpKind::kMatMul, rows, 64, 128, 1, 0, 64 * 128}, OpDesc{"norm", OpKind::kNorm, 0, 0, 0, 1, rows * 64, 64}};
}

TEST(GraphCosts, SizeCountsNodesWeightsAndActivations) {
  const GraphSize s = graph_size(layer(32));
  EXPECT_EQ(s.ops, 2u);
  // Weights 8192 + 64 B at 8 bits; the matmul's 32 x 128 INT8 output; the norm's 2048 FP16 elements.
  EXPECT_EQ(s.tensor_bytes, 8192u + 64u + 32u * 128u + 2048u * 2u);
  // shadowAttn's estimation writes raw INT32 scores: 4 bytes each.
  const GraphSize qk = graph_size({OpDesc{"qk_estimate", OpKind::kQkEstimate, 256, 64, 512, 2, 0, 0}});
  EXPECT_EQ(qk.tensor_bytes, 2u * 256u * 512u * 4u);
}

TEST(GraphCosts, PreparationGrowsWithNodesAndTensorBytes) {
  NpuGraphSpec g = test::small_npu().graph;
  g.build_base = 2 * kMillisecond;
  g.build_per_mib_ms = 10;  // 10 ms per MiB
  g.optimize_per_mib_ms = 100;
  const GraphSize short_seq = graph_size(layer(1024)), long_seq = graph_size(layer(4096));
  // Build: base + 1 ms per node + 10 ms per MiB of tensors.
  const double mib_short = static_cast<double>(short_seq.tensor_bytes) / (1024.0 * 1024.0);
  EXPECT_EQ(graph_build_time(g, short_seq), 2 * kMillisecond + 2 * kMillisecond + seconds_to_ticks_ceil(10 * mib_short / 1e3));
  // The same nodes over four times the rows: only the bytes' share grows.
  const double mib_long = static_cast<double>(long_seq.tensor_bytes) / (1024.0 * 1024.0);
  EXPECT_GT(mib_long, 3.5 * mib_short);
  EXPECT_EQ(graph_build_time(g, long_seq) - graph_build_time(g, short_seq),
            seconds_to_ticks_ceil(10 * mib_long / 1e3) - seconds_to_ticks_ceil(10 * mib_short / 1e3));
  EXPECT_GT(graph_optimize_time(g, long_seq), graph_optimize_time(g, short_seq));
  EXPECT_EQ(graph_optimize_time(g, graph_size({})), 0u);
}

TEST(GraphCosts, ExecuteIsTheCallNodesAndClientBuffers) {
  const NpuGraphSpec g = test::small_npu().graph;  // 250 us + 40 us a node; client: 1 ms + 2 GB/s
  EXPECT_EQ(graph_execute_time(g, 4, 0), 410 * kMicrosecond);
  EXPECT_EQ(graph_execute_time(g, 4, 2'000'000), 410 * kMicrosecond + kMillisecond + kMillisecond);
  // A byte of client buffers pays the fixed synchronization too (rounded up to a whole picosecond).
  EXPECT_EQ(graph_execute_time(g, 0, 1), 250 * kMicrosecond + kMillisecond + 500);
}

}  // namespace
}  // namespace socsim::hw
