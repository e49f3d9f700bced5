#pragma once
// How a vendor-runtime static graph lays out a matmul's activations (hw::GemmShape::width). The
// runtime stores NHWC tensors in croutons (hw::NpuLayoutSpec) and pads height and width to whole
// croutons, so the same tokens x channels matrix costs more or less depending on how its tokens
// are folded into height x width (llm.npu 4: [1024, 1, 2048] vs [32, 32, 2048]).
#include <cstdint>

#include "sim/hw/npu/gemm_plan.h"

namespace socsim::kernels {

enum class GraphActivationLayout {
  kPacked,           // rows packed straight into HMX tiles, no crouton padding: the systems whose
                     // papers tune their graphs' shapes (HeteroLLM, shadowAttn) and the baselines
  kTokensAsHeight,   // [tokens, 1, channels]: the token-major tensor as it enters the graph, width 1
  kEquivalentShape,  // the fastest [h, w, channels] with h x w = tokens, profiled offline (llm.npu 4)
};

const char* graph_activation_layout_name(GraphActivationLayout l);

// The GemmShape::width a graph uses for `shape` (shape.width is ignored): 0 for kPacked, 1 for
// kTokensAsHeight; for kEquivalentShape the divisor w of shape.m whose plan (hw::plan_hmx_gemm)
// is fastest on an idle NPU (hw::idle_plan_seconds; ties: the smaller w). O(sqrt m) plans, each
// memoized by plan_hmx_gemm; callers lower each op shape once (runtime::LoweringCache).
std::uint64_t graph_activation_width(const hw::NpuSpec& npu, const hw::GemmShape& shape, hw::OperandHome home,
                                     GraphActivationLayout layout);

}  // namespace socsim::kernels
