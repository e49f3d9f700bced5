#include "sim/systems/llms/compression_accuracy.h"

#include <algorithm>
#include <cmath>

#include "kernels/attention/attention_core.h"
#include "kernels/quant/channel_requant.h"
#include "sim/systems/llms/compression_levels.h"

namespace socsim::systems::llms {

using kernels::Tensor;

namespace {

// std::lround to the nearest integer (ties away from zero), clamped to INT8's symmetric range, without
// lround's library call (13% of a functional serve): in double, v + 1/2 is exact for any float v
// below 2^29 and the truncation rounds the rest as lround does. NaN as lround's LONG_MIN, clamped.
std::int8_t round_to_int8(float v) {
  if (std::isnan(v)) return -127;
  const double r = std::trunc(static_cast<double>(v) + std::copysign(0.5, static_cast<double>(v)));
  return static_cast<std::int8_t>(std::clamp(r, -127.0, 127.0));
}

// One [heads, n, d] cache through INT8 (per-channel symmetric) and, per chunk, its level's bits.
// Channel c is head c / d, element c % d; the loops walk the cache in memory order.
Tensor compress(const Tensor& x, const std::vector<int>& level, std::uint32_t chunk_tokens) {
  const std::int64_t heads = x.dim(0), n = x.dim(1), d = x.dim(2), ch = heads * d;
  const float* xs = x.data<float>().data();
  std::vector<float> s(static_cast<std::size_t>(ch), 1e-12f);
  for (std::int64_t h = 0; h < heads; ++h) {
    float* sh = s.data() + h * d;
    for (std::int64_t t = 0; t < n; ++t) {
      const float* row = xs + (h * n + t) * d;
      for (std::int64_t i = 0; i < d; ++i) sh[i] = std::max(sh[i], std::abs(row[i]) / 127.0f);
    }
  }
  Tensor out({heads, n, d}, kernels::ElemType::kF32);
  float* os = out.data<float>().data();
  for (std::int64_t t0 = 0, chunk = 0; t0 < n; t0 += chunk_tokens, ++chunk) {
    const std::int64_t rows = std::min<std::int64_t>(chunk_tokens, n - t0);
    std::vector<std::int8_t> q(static_cast<std::size_t>(rows * ch));  // [rows, channels]
    for (std::int64_t h = 0; h < heads; ++h) {
      for (std::int64_t t = 0; t < rows; ++t) {
        const float* row = xs + (h * n + t0 + t) * d;
        std::int8_t* qr = q.data() + t * ch + h * d;
        for (std::int64_t i = 0; i < d; ++i) qr[i] = round_to_int8(row[i] / s[static_cast<std::size_t>(h * d + i)]);
      }
    }
    const int lv = level[static_cast<std::size_t>(chunk)];
    if (lv > 0) q = kernels::dequantize_channelwise(kernels::requantize_channelwise(q, rows, ch, lv == 1 ? 4 : 2));
    for (std::int64_t h = 0; h < heads; ++h) {
      for (std::int64_t t = 0; t < rows; ++t) {
        float* row = os + (h * n + t0 + t) * d;
        const std::int8_t* qr = q.data() + t * ch + h * d;
        for (std::int64_t i = 0; i < d; ++i) row[i] = static_cast<float>(qr[i]) * s[static_cast<std::size_t>(h * d + i)];
      }
    }
  }
  return out;
}

// Attention outputs of the last `rows` queries of every layer and head over a cache.
std::vector<float> outputs(const TinyDecoder& m, const std::vector<LayerKv>& kv, const std::vector<Tensor>& q, std::int64_t rows) {
  const std::int64_t n = kv[0].k.dim(1), d = m.head_dim, hd = m.heads * d, first_q = n - q[0].dim(0);
  kernels::RowAttender att;
  std::vector<float> o;
  std::vector<float> row(static_cast<std::size_t>(d));
  for (std::size_t l = 0; l < kv.size(); ++l) {
    for (std::int64_t r = n - rows; r < n; ++r) {
      for (std::int64_t h = 0; h < m.heads; ++h) {
        att.over_prefix(q[l].data<float>().data() + (r - first_q) * hd + h * d, kv[l].k.data<float>().data() + h * n * d,
                        kv[l].v.data<float>().data() + h * n * d, static_cast<std::uint64_t>(r + 1), static_cast<std::uint64_t>(d),
                        1.0f / std::sqrt(static_cast<float>(d)), row.data());
        o.insert(o.end(), row.begin(), row.end());
      }
    }
  }
  return o;
}

double rel_error(const std::vector<float>& a, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - ref[i]) * (a[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : 0.0;
}

}  // namespace

std::vector<std::vector<float>> attention_maps(const TinyDecoder& m, const std::vector<LayerKv>& kv, const std::vector<Tensor>& q) {
  const std::int64_t n = kv[0].k.dim(1), rows = q[0].dim(0), first = n - rows, d = m.head_dim, hd = m.heads * d;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::vector<std::vector<float>> maps;
  for (std::size_t l = 0; l < kv.size(); ++l) {
    for (std::int64_t h = 0; h < m.heads; ++h) {
      std::vector<float> a(static_cast<std::size_t>(rows * n), 0.0f);
      for (std::int64_t r = 0; r < rows; ++r) {
        const float* qr = q[l].data<float>().data() + r * hd + h * d;
        float* ar = a.data() + r * n;
        const std::int64_t last = first + r;  // causal: the row's own position
        float mx = -INFINITY;
        for (std::int64_t c = 0; c <= last; ++c) {
          const float* kc = kv[l].k.data<float>().data() + (h * n + c) * d;
          float s = 0;  // inline dot: a call per 16-element key dominated the functional serve profile
          for (std::int64_t i = 0; i < d; ++i) s += qr[i] * kc[i];
          ar[c] = scale * s;
          mx = std::max(mx, ar[c]);
        }
        double sum = 0;
        for (std::int64_t c = 0; c <= last; ++c) sum += ar[c] = std::exp(ar[c] - mx);
        for (std::int64_t c = 0; c <= last; ++c) ar[c] = static_cast<float>(ar[c] / sum);
      }
      maps.push_back(std::move(a));
    }
  }
  return maps;
}

double compressed_attention_error(const TinyDecoder& m, const std::vector<LayerKv>& kv, const std::vector<Tensor>& q,
                                  const std::vector<int>& level, std::uint32_t chunk_tokens, std::int64_t query_rows) {
  auto run = [&](const std::vector<int>& lv) {
    std::vector<LayerKv> c(kv.size());
    for (std::size_t l = 0; l < kv.size(); ++l) c[l] = {compress(kv[l].k, lv, chunk_tokens), compress(kv[l].v, lv, chunk_tokens)};
    return outputs(m, c, q, std::min(query_rows, q[0].dim(0)));
  };
  return rel_error(run(level), run(std::vector<int>(level.size(), 0)));
}

CompressionAccuracy compression_accuracy(const TinyDecoder& m, const std::vector<int>& tokens, std::uint32_t chunk_tokens,
                                         double global_ratio, std::int64_t query_rows) {
  std::vector<Tensor> q;
  const auto kv = prefill_kv(m, tokens, &q);
  const auto n = static_cast<std::int64_t>(tokens.size());
  std::vector<const float*> ptrs;
  const auto maps = attention_maps(m, kv, q);
  for (const auto& a : maps) ptrs.push_back(a.data());
  CompressionAccuracy r;
  r.chunk_density = chunk_density(token_density(ptrs, n, n), chunk_tokens);
  r.llms_levels = assign_levels(r.chunk_density, global_ratio);
  std::vector<double> negated;
  for (double x : r.chunk_density) negated.push_back(-x);
  const auto inverse = assign_levels(negated, global_ratio);
  const std::vector<int> uniform4(r.chunk_density.size(), 1);
  r.llms_rel_error = compressed_attention_error(m, kv, q, r.llms_levels, chunk_tokens, query_rows);
  r.uniform4_rel_error = compressed_attention_error(m, kv, q, uniform4, chunk_tokens, query_rows);
  r.inverse_rel_error = compressed_attention_error(m, kv, q, inverse, chunk_tokens, query_rows);
  for (int l : r.llms_levels) r.llms_kept_ratio += kLevelRatio[l];
  r.llms_kept_ratio /= static_cast<double>(r.llms_levels.size());
  return r;
}

}  // namespace socsim::systems::llms
