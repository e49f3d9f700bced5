#include "kernels/gemm/graph_activation_layout.h"

#include "sim/core/host_memory.h"
#include "sim/core/run_progress.h"

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

// Rows from which a width's GEMM plan takes long enough (~10 ms) to check the host between them.
constexpr std::uint64_t kLongSearchRows = 4096;

std::uint64_t fastest_width(const hw::NpuSpec& npu, hw::GemmShape s, hw::OperandHome home) {
  std::uint64_t best = 0;
  double best_t = 0;
  const auto consider = [&](std::uint64_t w) {
    s.width = w;
    const double t = hw::idle_hmx_gemm_seconds(npu, s, home);
    if (best == 0 || t < best_t || (t == best_t && w < best)) best = w, best_t = t;
  };
  // Every factorization h x w = m (O(sqrt m) candidates; m is a chunk or a prompt, times the
  // batch). Each is a GEMM plan of the whole shape: at a batch of 10,000 rows, minutes in all, so
  // the search says where it is and stops for Ctrl-C or the host-memory limit.
  std::size_t tried = 0, widths = 0;
  for (std::uint64_t d = 1; d <= s.m / d; ++d) widths += s.m % d != 0 ? 0 : d != s.m / d ? 2 : 1;
  for (std::uint64_t d = 1; d <= s.m / d; ++d) {
    if (s.m % d != 0) continue;
    tried += d != s.m / d ? 2 : 1;
    progress_plan_search("an NPU graph's activation layout (equivalent shapes), width candidate", tried, widths);
    if (s.m >= kLongSearchRows) check_host_memory();  // (a /proc read: only where a plan is slow)
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
