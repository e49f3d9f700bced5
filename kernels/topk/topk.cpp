#include "kernels/topk/topk.h"

#include "kernels/topk/ratio_row_sums.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace socsim::kernels {

namespace {

template <class T>
double key(T v) {
  const double d = static_cast<double>(v);
  return std::isnan(d) ? -std::numeric_limits<double>::infinity() : d;
}

template <class T, class KFor>
RowIndices select(std::span<const T> s, std::uint64_t rows, std::uint64_t n, std::uint64_t p0, KFor k_for) {
  RowIndices out(rows);
  std::vector<std::int32_t> cand;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::uint64_t vis = visible_keys(n, p0, r);
    const std::uint64_t k = std::min<std::uint64_t>(k_for(vis), vis);
    const T* row = s.data() + r * n;
    cand.resize(vis);
    std::iota(cand.begin(), cand.end(), 0);
    // A strict total order (score descending, then index ascending): deterministic ties.
    auto better = [row](std::int32_t a, std::int32_t b) {
      const double ka = key(row[a]), kb = key(row[b]);
      return ka != kb ? ka > kb : a < b;
    };
    std::partial_sort(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(k), cand.end(), better);
    out[r].assign(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return out;
}

template <class KFor>
RowIndices dispatch(const Tensor& scores, std::uint64_t p0, KFor k_for) {
  if (scores.rank() != 2) throw std::invalid_argument("top-k expects a [rows, n] score matrix");
  const auto rows = static_cast<std::uint64_t>(scores.dim(0)), n = static_cast<std::uint64_t>(scores.dim(1));
  if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) throw std::invalid_argument("top-k: too many keys");
  switch (scores.type()) {
    case ElemType::kF32: return select(scores.data<float>(), rows, n, p0, k_for);
    case ElemType::kI32: return select(scores.data<std::int32_t>(), rows, n, p0, k_for);
    default: throw std::invalid_argument(std::string("top-k scores must be f32 or i32, not ") + elem_type_name(scores.type()));
  }
}

template <class KFor>
CpuWork lower(const TopKShape& s, KFor k_for, std::uint32_t threads) {
  hw::CpuTask t;
  t.name = "topk";
  t.dtype = hw::DType::kFp32;
  for (std::uint64_t r = 0; r < s.rows; ++r) {
    const std::uint64_t vis = visible_keys(s.n, s.p0, r);
    const std::uint64_t k = std::min<std::uint64_t>(k_for(vis), vis);
    t.ops += topk_row_ops(vis, k);
    t.dram_bytes += vis * s.score_bytes + k * 4;
  }
  return CpuWork{{t}, std::max<std::uint32_t>(1, threads)};
}

}  // namespace

std::uint64_t visible_keys(std::uint64_t n, std::uint64_t p0, std::uint64_t row) { return std::min(n, p0 + row + 1); }

std::uint64_t k_for_ratio(double ratio, std::uint64_t visible) {
  if (!(ratio >= 0)) throw std::invalid_argument("top-k ratio must be >= 0");
  return k_for_capped_ratio(std::min(ratio, 1.0), visible);
}

RowIndices topk_causal(const Tensor& scores, std::uint64_t p0, std::uint64_t k) {
  return dispatch(scores, p0, [k](std::uint64_t) { return k; });
}

RowIndices topk_causal_ratio(const Tensor& scores, std::uint64_t p0, double ratio) {
  k_for_ratio(ratio, 0);  // validates
  return dispatch(scores, p0, [ratio](std::uint64_t vis) { return k_for_ratio(ratio, vis); });
}

double topk_row_ops(std::uint64_t visible, std::uint64_t k) {
  k = std::min(k, visible);
  if (k == 0) return 0;
  const double depth = std::max<double>(1, static_cast<double>(std::bit_width(k - 1)));  // ceil(log2 k)
  return static_cast<double>(visible) * depth;
}

CpuWork lower_topk_cpu(const TopKShape& s, std::uint64_t k, std::uint32_t threads) {
  return lower(s, [k](std::uint64_t) { return k; }, threads);
}

CpuWork lower_topk_cpu_ratio(const TopKShape& s, double ratio, std::uint32_t threads) {
  k_for_ratio(ratio, 0);  // validates
  const double capped = std::min(ratio, 1.0);
  // lower()'s sums in integers: every row's ops are an integer, so while the total stays below
  // 2^53 lower()'s double sum is exact and these are its values to the bit (shadowAttn lowers
  // a top-k per head and chunk, 1,024 rows each, about 14% of a run's instructions row by row).
  const double most = static_cast<double>(s.rows) * static_cast<double>(s.n) * 64.0;
  if (!(most < 0x1p53)) return lower(s, [capped](std::uint64_t vis) { return k_for_capped_ratio(capped, vis); }, threads);
  std::uint64_t ops = 0, bytes = 0;
  const auto row = [&](std::uint64_t vis, std::uint64_t count) {
    const std::uint64_t k = k_for_capped_ratio(capped, vis);
    if (k > 0) ops += count * vis * std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::bit_width(k - 1)));
    bytes += count * (vis * s.score_bytes + k * 4);
  };
  // Rows before the diagonal's end see one key more each (visible_keys); the rest see all n.
  const std::uint64_t growing = s.p0 + 1 < s.n ? std::min(s.rows, s.n - s.p0 - 1) : 0;
  // A ratio of whole parts per million (shadowAttn's ops): the growing rows' sums in closed form,
  // the same integers as the loop (ratio_row_sums.h).
  const auto ppm = growing > 0 && s.p0 + growing <= kMaxExactVisible ? ratio_as_ppm(capped) : std::nullopt;
  if (ppm) {
    const RatioRowSums sums = ratio_row_sums(*ppm, s.p0 + 1, s.p0 + growing);
    ops += sums.ops;
    // sum of v over the growing rows, times the score bytes, and each kept index's 4 bytes.
    const std::uint64_t v_sum = growing * s.p0 + growing * (growing + 1) / 2;
    bytes += v_sum * s.score_bytes + sums.kept * 4;
  } else {
    for (std::uint64_t r = 0; r < growing; ++r) row(s.p0 + r + 1, 1);
  }
  if (s.rows > growing) row(visible_keys(s.n, s.p0, growing), s.rows - growing);
  hw::CpuTask t;
  t.name = "topk";
  t.dtype = hw::DType::kFp32;
  t.ops = static_cast<double>(ops);
  t.dram_bytes = bytes;
  return CpuWork{{t}, std::max<std::uint32_t>(1, threads)};
}

double topk_row_ops_gpu(std::uint64_t visible) {
  constexpr double kRadixPasses = 4, kOpsPerPass = 3, kWriteOps = 2;
  return static_cast<double>(visible) * (kRadixPasses * kOpsPerPass + kWriteOps);
}

GpuWork lower_topk_gpu_ratio(const TopKShape& s, double ratio) {
  k_for_ratio(ratio, 0);  // validates
  hw::GpuKernel g;
  g.name = "topk";
  g.dtype = hw::DType::kFp32;
  g.streaming = true;
  double bytes = 0;
  for (std::uint64_t r = 0; r < s.rows; ++r) {
    const std::uint64_t vis = visible_keys(s.n, s.p0, r);
    if (k_for_ratio(ratio, vis) == 0) continue;
    g.flops += topk_row_ops_gpu(vis);
    bytes += static_cast<double>(vis * s.score_bytes + k_for_ratio(ratio, vis) * 4);
  }
  g.dram_bytes = static_cast<std::uint64_t>(bytes);
  return GpuWork{{g}};
}

}  // namespace socsim::kernels
