// Which static-graph consumers stream behind their producer's GEMM blocks.
#include "sim/runtime/graph_dataflow.h"

#include <gtest/gtest.h>

namespace socsim::runtime {
namespace {

using kernels::NpuStep;
using model::OpDesc;
using model::OpKind;

NpuOpWork gemm(std::size_t steps) {
  NpuOpWork w;
  for (std::size_t i = 0; i < steps; ++i) w.work.steps.push_back(NpuStep::hmx_gemm("g", {64, 64, 64, hw::DType::kInt8}));
  return w;
}

kernels::NpuWork hvx(std::size_t steps) {
  kernels::NpuWork w;
  for (std::size_t i = 0; i < steps; ++i) w.steps.push_back(NpuStep::hvx("v", 100, 4));
  return w;
}

TEST(GraphDataflow, OnlyAMatmulsElementwiseEpilogueStreams) {
  const OpDesc mm{"q_proj", OpKind::kMatMul}, deq{"q_proj_dequantize", OpKind::kDequantize};
  EXPECT_TRUE(streams_behind(mm, gemm(1), deq, hvx(1)));
  EXPECT_TRUE(streams_behind(mm, gemm(1), OpDesc{"act", OpKind::kActivation}, hvx(2)));
  // Attention's parts are one kernel: the softmax waits for its scores (streaming it split every
  // softmax step over every score block: quadratic work, 4 GB at 512 tokens of llama-3-8b).
  EXPECT_FALSE(streams_behind(OpDesc{"attn_scores", OpKind::kAttnScores}, gemm(1), OpDesc{"softmax", OpKind::kSoftmax}, hvx(1)));
  EXPECT_FALSE(streams_behind(mm, gemm(1), OpDesc{"softmax", OpKind::kSoftmax}, hvx(1)));
  // Several GEMMs (per-group INT8) have no single block order; a consumer with DMA or a pipeline waits.
  EXPECT_FALSE(streams_behind(mm, gemm(3), deq, hvx(1)));
  kernels::NpuWork with_dma = hvx(1);
  with_dma.steps.push_back(NpuStep::dma("d", 100, 1));
  EXPECT_FALSE(streams_behind(mm, gemm(1), deq, with_dma));
  kernels::NpuWork staged = hvx(2);
  staged.stages = {{"a", 1}, {"b", 0}};
  staged.steps[1].stage = 1;
  EXPECT_FALSE(streams_behind(mm, gemm(1), deq, staged));
  EXPECT_FALSE(streams_behind(mm, gemm(1), deq, kernels::NpuWork{}));
}

}  // namespace
}  // namespace socsim::runtime
