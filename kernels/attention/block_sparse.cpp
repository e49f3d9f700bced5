#include "kernels/attention/block_sparse.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "kernels/attention/attention_core.h"
#include "kernels/attention/head_bands.h"

namespace socsim::kernels {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

void check_block(std::uint64_t block) {
  if (block == 0) throw std::invalid_argument("block-sparse attention needs a block size > 0");
}

// Mean of rows [r0, r1) of a [rows, d] matrix.
void pool(const float* x, std::uint64_t r0, std::uint64_t r1, std::uint64_t d, float* out) {
  std::fill(out, out + d, 0.0f);
  for (std::uint64_t r = r0; r < r1; ++r) {
    for (std::uint64_t c = 0; c < d; ++c) out[c] += x[r * d + c];
  }
  const float inv = 1.0f / static_cast<float>(r1 - r0);
  for (std::uint64_t c = 0; c < d; ++c) out[c] *= inv;
}

}  // namespace

std::uint64_t query_blocks(const AttentionShape& s, std::uint64_t block) { return ceil_div(s.q_len, block); }

std::uint64_t candidate_key_blocks(const AttentionShape& s, std::uint64_t block, std::uint64_t a) {
  const std::uint64_t last_row = std::min(s.q_len, (a + 1) * block) - 1;
  return (s.q_pos0 + last_row) / block + 1;
}

std::uint64_t blocks_to_keep(const BlockSparseParams& p, std::uint64_t candidates) {
  const std::uint64_t k = p.keep_blocks > 0 ? p.keep_blocks : k_for_ratio(p.keep_ratio, candidates);
  return std::clamp<std::uint64_t>(k, 1, candidates);
}

Tensor pooled_block_scores(const Tensor& q, const Tensor& k, std::uint64_t p0, std::uint64_t block) {
  check_block(block);
  const AttentionShape s = attention_shape_of(q, k, k, p0);
  const std::uint64_t d = s.head_dim, qb = query_blocks(s, block), kb = ceil_div(s.keys_used(), block);
  std::vector<float> qpool(qb * d), kpool(kb * d);
  Tensor out({static_cast<std::int64_t>(s.heads), static_cast<std::int64_t>(qb), static_cast<std::int64_t>(kb)}, ElemType::kF32);
  auto od = out.data<float>();
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    const float* qh = q.data<float>().data() + h * s.q_len * d;
    const float* kh = k.data<float>().data() + s.kv_head_of(h) * s.kv_len * d;
    for (std::uint64_t a = 0; a < qb; ++a) pool(qh, a * block, std::min(s.q_len, (a + 1) * block), d, &qpool[a * d]);
    for (std::uint64_t b = 0; b < kb; ++b) pool(kh, b * block, std::min(s.keys_used(), (b + 1) * block), d, &kpool[b * d]);
    for (std::uint64_t a = 0; a < qb; ++a) {
      for (std::uint64_t b = 0; b < kb; ++b) od[(h * qb + a) * kb + b] = dot_f32(&qpool[a * d], &kpool[b * d], d);
    }
  }
  return out;
}

BlockSelection select_blocks(const Tensor& q, const Tensor& k, std::uint64_t p0, const BlockSparseParams& p) {
  const Tensor scores = pooled_block_scores(q, k, p0, p.block);
  const AttentionShape s = attention_shape_of(q, k, k, p0);
  const std::uint64_t qb = static_cast<std::uint64_t>(scores.dim(1)), kb = static_cast<std::uint64_t>(scores.dim(2));
  BlockSelection sel{p.block, qb, RowIndices(s.heads * qb)};
  std::vector<std::int32_t> cand;
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    for (std::uint64_t a = 0; a < qb; ++a) {
      const float* row = scores.data<float>().data() + (h * qb + a) * kb;
      const std::uint64_t n = candidate_key_blocks(s, p.block, a), keep = blocks_to_keep(p, n);
      const auto diag = static_cast<std::int32_t>((p0 + a * p.block) / p.block);
      cand.clear();
      for (std::uint64_t b = 0; b < n; ++b) {
        if (static_cast<std::int32_t>(b) != diag) cand.push_back(static_cast<std::int32_t>(b));
      }
      const auto others = static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(keep - 1, cand.size()));
      std::partial_sort(cand.begin(), cand.begin() + others, cand.end(),
                        [row](std::int32_t x, std::int32_t y) { return row[x] != row[y] ? row[x] > row[y] : x < y; });
      auto& out = sel.blocks[h * qb + a];
      out.assign(cand.begin(), cand.begin() + others);
      out.push_back(diag);
      std::sort(out.begin(), out.end());
    }
  }
  return sel;
}

Tensor block_sparse_attention_f32(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const BlockSelection& sel,
                                  std::optional<float> scale) {
  const AttentionShape s = attention_shape_of(q, k, v, p0);
  check_block(sel.block);
  if (sel.q_blocks != query_blocks(s, sel.block) || sel.blocks.size() != s.heads * sel.q_blocks) {
    throw std::invalid_argument("block-sparse attention: the block selection does not match the shapes");
  }
  const float sc = resolve_scale(s, scale);
  const std::uint64_t d = s.head_dim, B = sel.block;
  Tensor o(q.shape(), ElemType::kF32);
  for_head_bands(s, [&](std::uint64_t h0, std::uint64_t h1) {
    RowAttender row;
    std::vector<std::int32_t> keys;
    for (std::uint64_t h = h0; h < h1; ++h) {
      const std::uint64_t kvh = s.kv_head_of(h);
      for (std::uint64_t i = 0; i < s.q_len; ++i) {
        const std::uint64_t vis = s.visible(i);
        keys.clear();
        for (std::int32_t b : sel.blocks[h * sel.q_blocks + i / B]) {
          const std::uint64_t lo = static_cast<std::uint64_t>(b) * B, hi = std::min(vis, lo + B);
          for (std::uint64_t j = lo; j < hi; ++j) keys.push_back(static_cast<std::int32_t>(j));
        }
        const std::uint64_t r = h * s.q_len + i;
        row.over_indices(q.data<float>().data() + r * d, k.data<float>().data() + kvh * s.kv_len * d,
                         v.data<float>().data() + kvh * s.kv_len * d, keys, d, sc, o.data<float>().data() + r * d);
      }
    }
  });
  return o;
}

}  // namespace socsim::kernels
