#include "sim/systems/llms/attention_density.h"

#include <algorithm>
#include <stdexcept>

#include "sim/systems/llms/compression_accuracy.h"
#include "sim/systems/llms/compression_levels.h"

namespace socsim::systems::llms {

using kernels::ElemType;
using kernels::Tensor;

namespace {

// Rows per forward block: bounds the attention maps held at once (block x window x maps floats)
// without changing the result (causal attention, rows in order).
constexpr std::size_t kBlockRows = 64;

// [heads, n, d] with rows [from, from + keep) of x, room for `extra` more.
Tensor resized(const Tensor& x, std::int64_t from, std::int64_t keep, std::int64_t extra) {
  const std::int64_t heads = x.dim(0), n = x.dim(1), d = x.dim(2);
  Tensor out({heads, keep + extra, d}, ElemType::kF32);
  for (std::int64_t h = 0; h < heads; ++h) {
    std::copy_n(x.data<float>().begin() + (h * n + from) * d, keep * d, out.data<float>().begin() + h * (keep + extra) * d);
  }
  return out;
}

}  // namespace

TinyDecoder density_stand_in(std::uint64_t seed) { return TinyDecoder::synthetic(512, 32, 2, 64, 1, seed); }

ContextAttention::ContextAttention(const TinyDecoder& m, std::uint32_t chunk_tokens, std::uint32_t scored_rows)
    : m_(m), chunk_tokens_(chunk_tokens), scored_rows_(scored_rows) {
  kv_.resize(static_cast<std::size_t>(m.layers));
  for (auto& c : kv_) c = {Tensor({m.heads, 0, m.head_dim}, ElemType::kF32), Tensor({m.heads, 0, m.head_dim}, ElemType::kF32)};
}

void ContextAttention::drop_front(std::uint64_t count) {
  count = std::min<std::uint64_t>(count, ids_.size());
  if (count == 0) return;
  const auto c = static_cast<long>(count);
  const auto keep = static_cast<std::int64_t>(ids_.size() - count);
  for (auto& l : kv_) l = {resized(l.k, c, keep, 0), resized(l.v, c, keep, 0)};
  ids_.erase(ids_.begin(), ids_.begin() + c);
  mass_.erase(mass_.begin(), mass_.begin() + c);
  seen_.erase(seen_.begin(), seen_.begin() + c);
  rope_offset_ += count;
  last_q_.clear();
}

void ContextAttention::extend(const std::vector<int>& new_ids) {
  const std::size_t scored = scored_rows_ == 0 ? new_ids.size() : std::min<std::size_t>(scored_rows_, new_ids.size());
  const std::size_t lead = new_ids.size() - scored;
  if (lead > 0) extend_block(std::vector<int>(new_ids.begin(), new_ids.begin() + static_cast<long>(lead)), false);
  // Scored rows in blocks; the first takes the remainder so that the last block (whose queries
  // measure the error) is a full one whenever there are that many.
  std::size_t at = lead, first = scored % kBlockRows;
  if (first == 0) first = std::min(kBlockRows, scored);
  while (at < new_ids.size()) {
    const std::size_t take = at == lead ? first : kBlockRows;
    extend_block(std::vector<int>(new_ids.begin() + static_cast<long>(at), new_ids.begin() + static_cast<long>(at + take)), true);
    at += take;
  }
}

void ContextAttention::extend_block(const std::vector<int>& block, bool scored) {
  const auto old_n = static_cast<std::int64_t>(ids_.size()), rows = static_cast<std::int64_t>(block.size());
  const std::int64_t n = old_n + rows;
  for (auto& l : kv_) l = {resized(l.k, 0, old_n, rows), resized(l.v, 0, old_n, rows)};
  ids_.insert(ids_.end(), block.begin(), block.end());
  last_q_.clear();
  extend_kv(m_, ids_, old_n, kv_, &last_q_, rope_offset_);
  mass_.resize(static_cast<std::size_t>(n), 0.0);
  seen_.resize(static_cast<std::size_t>(n), 0.0);
  if (!scored) return;

  const auto maps = attention_maps(m_, kv_, last_q_);
  std::vector<const float*> ptrs;
  for (const auto& a : maps) ptrs.push_back(a.data());
  const auto d = token_density(ptrs, rows, n);  // this block's rows: received / rows that see
  for (std::int64_t c = 0; c < n; ++c) {
    const auto seeing = static_cast<double>(rows - std::max<std::int64_t>(0, c - old_n));
    mass_[static_cast<std::size_t>(c)] += d[static_cast<std::size_t>(c)] * seeing;
    seen_[static_cast<std::size_t>(c)] += seeing;
  }
}

std::vector<double> ContextAttention::chunk_densities() const {
  std::vector<double> token(mass_.size());
  for (std::size_t i = 0; i < token.size(); ++i) token[i] = mass_[i] / seen_[i];
  return chunk_density(token, chunk_tokens_);
}

double ContextAttention::compressed_error(const std::vector<int>& level, std::int64_t query_rows) const {
  if (last_q_.empty()) throw std::logic_error("compressed_error before any extend");
  return compressed_attention_error(m_, kv_, last_q_, level, chunk_tokens_, query_rows);
}

}  // namespace socsim::systems::llms
