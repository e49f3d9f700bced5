#include "sim/systems/llms/interleaved_recompute.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernels/attention/attention_core.h"
#include "kernels/elementwise/norm.h"
#include "kernels/elementwise/rope.h"
#include "kernels/gemm/gemm_float.h"
#include "sim/runtime/workload/portable_rng.h"

namespace socsim::systems::llms {

using kernels::ElemType;
using kernels::Tensor;

namespace {

Tensor random_matrix(runtime::PortableRng& rng, std::int64_t rows, std::int64_t cols) {
  Tensor t = Tensor::matrix(rows, cols, ElemType::kF32);
  const float scale = 1.0f / std::sqrt(static_cast<float>(rows));
  for (float& x : t.data<float>()) x = scale * static_cast<float>(rng.standard_normal());
  return t;
}

Tensor rows_of(const Tensor& t, const std::vector<std::int64_t>& rows) {
  const std::int64_t cols = t.dim(1);
  Tensor out = Tensor::matrix(static_cast<std::int64_t>(rows.size()), cols, ElemType::kF32);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::copy_n(t.data<float>().begin() + rows[i] * cols, cols, out.data<float>().begin() + static_cast<std::int64_t>(i) * cols);
  }
  return out;
}

void add_into(Tensor& x, const Tensor& y) {
  auto a = x.data<float>();
  auto b = y.data<float>();
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
}

// Runs every layer for the tokens at `positions` (ascending); reads and writes their K/V rows.
void forward_rows(const TinyDecoder& m, const std::vector<int>& tokens, const std::vector<std::int64_t>& positions,
                  std::vector<LayerKv>& kv, bool global_positions, std::vector<Tensor>* queries, std::uint64_t rope_offset = 0) {
  const auto n = static_cast<std::int64_t>(positions.size());
  const std::int64_t d = m.head_dim, hd = m.heads * m.head_dim;
  std::vector<std::int64_t> ids;
  for (auto p : positions) ids.push_back(tokens[static_cast<std::size_t>(p)]);
  Tensor x = rows_of(m.embedding, ids);
  kernels::RowAttender attender;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const auto& w = m.layer[static_cast<std::size_t>(l)];
    const Tensor h = kernels::rms_norm(x, w.attn_norm, 1e-6f);
    Tensor q = kernels::gemm_f32(h, w.wq), k = kernels::gemm_f32(h, w.wk), v = kernels::gemm_f32(h, w.wv);
    auto& cache = kv[static_cast<std::size_t>(l)];
    for (std::int64_t i = 0; i < n; ++i) {
      // RoPE per token at its position: the global one, or its index among the recomputed rows.
      const auto pos = rope_offset + static_cast<std::uint64_t>(global_positions ? positions[static_cast<std::size_t>(i)] : i);
      for (Tensor* t : {&q, &k}) {
        Tensor row({1, m.heads, d}, ElemType::kF32);
        std::copy_n(t->data<float>().begin() + i * hd, hd, row.data<float>().begin());
        kernels::apply_rope(row, {}, pos);
        std::copy_n(row.data<float>().begin(), hd, t->data<float>().begin() + i * hd);
      }
      const std::int64_t p = positions[static_cast<std::size_t>(i)];
      const std::int64_t len = cache.k.dim(1);
      for (std::int64_t head = 0; head < m.heads; ++head) {
        std::copy_n(k.data<float>().begin() + i * hd + head * d, d, cache.k.data<float>().begin() + (head * len + p) * d);
        std::copy_n(v.data<float>().begin() + i * hd + head * d, d, cache.v.data<float>().begin() + (head * len + p) * d);
      }
    }
    if (queries) queries->push_back(q);
    // The last layer's attention output and MLP only produce the next layer's input: no K/V or
    // query depends on them, so they are skipped.
    if (l + 1 == m.layers) break;
    // Every recomputed K/V of this layer is in place: each row attends to positions 0..p.
    Tensor o = Tensor::matrix(n, hd, ElemType::kF32);
    const std::int64_t len = cache.k.dim(1);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto p = static_cast<std::uint64_t>(positions[static_cast<std::size_t>(i)]);
      for (std::int64_t head = 0; head < m.heads; ++head) {
        attender.over_prefix(q.data<float>().data() + i * hd + head * d, cache.k.data<float>().data() + head * len * d,
                             cache.v.data<float>().data() + head * len * d, p + 1, static_cast<std::uint64_t>(d), scale,
                             o.data<float>().data() + i * hd + head * d);
      }
    }
    add_into(x, kernels::gemm_f32(o, w.wo));
    Tensor up = kernels::gemm_f32(kernels::rms_norm(x, w.mlp_norm, 1e-6f), w.w1);
    for (float& u : up.data<float>()) u = std::max(u, 0.0f);
    add_into(x, kernels::gemm_f32(up, w.w2));
  }
}

}  // namespace

TinyDecoder TinyDecoder::synthetic(std::int64_t vocab, std::int64_t hidden, std::int64_t heads, std::int64_t ffn, std::int64_t layers,
                                   std::uint64_t seed) {
  runtime::PortableRng rng(seed);
  TinyDecoder m;
  m.vocab = vocab;
  m.hidden = hidden;
  m.heads = heads;
  m.head_dim = hidden / heads;
  m.ffn = ffn;
  m.layers = layers;
  m.embedding = random_matrix(rng, vocab, hidden);
  for (std::int64_t l = 0; l < layers; ++l) {
    Layer w;
    w.attn_norm.assign(static_cast<std::size_t>(hidden), 1.0f);
    w.mlp_norm.assign(static_cast<std::size_t>(hidden), 1.0f);
    w.wq = random_matrix(rng, hidden, hidden);
    w.wk = random_matrix(rng, hidden, hidden);
    w.wv = random_matrix(rng, hidden, hidden);
    w.wo = random_matrix(rng, hidden, hidden);
    w.w1 = random_matrix(rng, hidden, ffn);
    w.w2 = random_matrix(rng, ffn, hidden);
    m.layer.push_back(std::move(w));
  }
  return m;
}

std::vector<LayerKv> prefill_kv(const TinyDecoder& m, const std::vector<int>& tokens, std::vector<kernels::Tensor>* queries) {
  const auto n = static_cast<std::int64_t>(tokens.size());
  std::vector<LayerKv> kv(static_cast<std::size_t>(m.layers));
  for (auto& c : kv) {
    c.k = Tensor({m.heads, n, m.head_dim}, ElemType::kF32);
    c.v = Tensor({m.heads, n, m.head_dim}, ElemType::kF32);
  }
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  forward_rows(m, tokens, all, kv, true, queries);
  return kv;
}

void extend_kv(const TinyDecoder& m, const std::vector<int>& tokens, std::int64_t first, std::vector<LayerKv>& kv,
               std::vector<Tensor>* queries, std::uint64_t rope_offset) {
  std::vector<std::int64_t> rows(tokens.size() - static_cast<std::size_t>(first));
  std::iota(rows.begin(), rows.end(), first);
  forward_rows(m, tokens, rows, kv, true, queries, rope_offset);
}

void recompute_missing(const TinyDecoder& m, const std::vector<int>& tokens, const std::vector<std::int64_t>& missing,
                       std::vector<LayerKv>& kv, bool global_positions) {
  forward_rows(m, tokens, missing, kv, global_positions, nullptr);
}

}  // namespace socsim::systems::llms
