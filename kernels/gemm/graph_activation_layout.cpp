#include "kernels/gemm/graph_activation_layout.h"


namespace socsim::kernels {

const char* graph_activation_layout_name(GraphActivationLayout l) {
  switch (l) {
    case GraphActivationLayout::kPacked: return "packed";
    case GraphActivationLayout::kTokensAsHeight: return "tokens-as-height";
    case GraphActivationLayout::kEquivalentShape: return "equivalent-shape";
  }
  return "?";
}

namespace {

std::uint64_t fastest_width(const hw::NpuSpec& npu, hw::GemmShape s, hw::OperandHome home) {
  std::uint64_t best = 0;
  double best_t = 0;
  const auto consider = [&](std::uint64_t w) {
    s.width = w;
    const double t = hw::idle_hmx_gemm_seconds(npu, s, home);
    if (best == 0 || t < best_t || (t == best_t && w < best)) best = w, best_t = t;
  };
  // Every factorization h x w = m (O(sqrt m) candidates; m is a chunk or a prompt).
  for (std::uint64_t d = 1; d <= s.m / d; ++d) {
    if (s.m % d != 0) continue;
    consider(d);
    if (d != s.m / d) consider(s.m / d);
  }
  return best;
}

}  // namespace

std::uint64_t graph_activation_width(const hw::NpuSpec& npu, const hw::GemmShape& shape, hw::OperandHome home,
                                     GraphActivationLayout layout) {
  switch (layout) {
    case GraphActivationLayout::kPacked: return 0;
    case GraphActivationLayout::kTokensAsHeight: return 1;
    case GraphActivationLayout::kEquivalentShape: break;
  }
  return fastest_width(npu, shape, home);
}

}  // namespace socsim::kernels
