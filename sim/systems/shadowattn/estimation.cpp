#include "sim/systems/shadowattn/estimation.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "kernels/attention/sparse_attention.h"

namespace socsim::systems::shadowattn {

using kernels::ElemType;
using kernels::Tensor;

double absmax_scale(const Tensor& t) {
  double m = 0;
  for (float x : t.data<float>()) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m > 0 ? m / 127.0 : 1.0;
}

namespace {

std::vector<std::int32_t> quantize(const Tensor& t, double scale) {
  std::vector<std::int32_t> out;
  out.reserve(t.data<float>().size());
  for (float x : t.data<float>()) {
    out.push_back(static_cast<std::int32_t>(std::clamp(std::nearbyint(static_cast<double>(x) / scale), -127.0, 127.0)));
  }
  return out;
}

void check(const Tensor& q, const Tensor& k) {
  if (q.shape().size() != 2 || k.shape().size() != 2 || q.shape()[1] != k.shape()[1]) {
    throw std::invalid_argument("estimation: q [m, d] and k [n, d] expected");
  }
}

}  // namespace

Tensor estimate_int8(const Tensor& q, const Tensor& k, ScalePair scales) {
  check(q, k);
  const auto m = q.shape()[0], n = k.shape()[0], d = q.shape()[1];
  const auto qi = quantize(q, scales.q), ki = quantize(k, scales.k);
  Tensor s({m, n}, ElemType::kI32);
  auto out = s.data<std::int32_t>();
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      std::int32_t acc = 0;
      for (std::int64_t c = 0; c < d; ++c) acc += qi[static_cast<std::size_t>(i * d + c)] * ki[static_cast<std::size_t>(j * d + c)];
      out[static_cast<std::size_t>(i * n + j)] = acc;
    }
  }
  return s;
}

Tensor scores_f32(const Tensor& q, const Tensor& k) {
  check(q, k);
  const auto m = q.shape()[0], n = k.shape()[0], d = q.shape()[1];
  Tensor s({m, n}, ElemType::kF32);
  auto out = s.data<float>();
  const auto a = q.data<float>(), b = k.data<float>();
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (std::int64_t c = 0; c < d; ++c) acc += a[static_cast<std::size_t>(i * d + c)] * b[static_cast<std::size_t>(j * d + c)];
      out[static_cast<std::size_t>(i * n + j)] = acc;
    }
  }
  return s;
}

double topk_recall(const kernels::RowIndices& kept, const kernels::RowIndices& reference) {
  if (kept.size() != reference.size()) throw std::invalid_argument("topk_recall: row counts differ");
  std::uint64_t hit = 0, total = 0;
  for (std::size_t r = 0; r < kept.size(); ++r) {
    const std::set<std::int32_t> k(kept[r].begin(), kept[r].end());
    for (auto j : reference[r]) hit += k.count(j);
    total += reference[r].size();
  }
  return total ? static_cast<double>(hit) / static_cast<double>(total) : 1.0;
}

HeadResult sparse_head(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, double ratio, const ScalePair* scales) {
  HeadResult r;
  const Tensor ref_scores = scores_f32(q, k);
  const auto reference = kernels::topk_causal_ratio(ref_scores, p0, ratio);
  r.kept = scales ? kernels::topk_causal_ratio(estimate_int8(q, k, *scales), p0, ratio) : reference;
  r.recall = topk_recall(r.kept, reference);
  for (const auto& row : reference) r.reference_size += row.size();
  // sparse_attention_f32 takes [heads, m, d] / [kv_heads, n, d].
  const auto m = q.shape()[0], n = k.shape()[0], d = q.shape()[1];
  Tensor q3({1, m, d}, ElemType::kF32), k3({1, n, d}, ElemType::kF32), v3({1, n, d}, ElemType::kF32);
  std::copy(q.data<float>().begin(), q.data<float>().end(), q3.data<float>().begin());
  std::copy(k.data<float>().begin(), k.data<float>().end(), k3.data<float>().begin());
  std::copy(v.data<float>().begin(), v.data<float>().end(), v3.data<float>().begin());
  Tensor o = kernels::sparse_attention_f32(q3, k3, v3, p0, r.kept);
  r.out = Tensor({m, d}, ElemType::kF32);
  std::copy(o.data<float>().begin(), o.data<float>().end(), r.out.data<float>().begin());
  return r;
}

}  // namespace socsim::systems::shadowattn
