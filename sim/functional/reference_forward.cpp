#include "sim/functional/reference_forward.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "sim/core/host_memory.h"
#include "kernels/gemm/gemm_float.h"
#include "kernels/gemm/packed_gemm.h"
#include "sim/functional/tensor_util.h"

namespace socsim::functional {

using kernels::Tensor;

namespace {

// f(i) for i in [0, n), in bands on the GEMM threads. Every use below computes each index (a row,
// or an element) on its own, so the bands give the numbers one loop gives; small loops stay on
// one thread (starting one costs more than they take).
template <class F>
void each_index(std::uint64_t n, std::uint64_t cost_per_index, F&& f) {
  const double cost = static_cast<double>(n) * static_cast<double>(cost_per_index);
  kernels::parallel_bands(n, kernels::threads_for(cost, 1 << 16, n), [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) f(i);
  });
}

// RMSNorm / LayerNorm of each row, statistics in double.
Tensor norm(const model::ModelConfig& m, const Tensor& x, const NormWeights& w) {
  const std::uint64_t rows = static_cast<std::uint64_t>(x.dim(0)), h = static_cast<std::uint64_t>(x.dim(1));
  Tensor y = f32_matrix(rows, h);
  const float* in = x.data<float>().data();
  float* out = y.data<float>().data();
  each_index(rows, h, [&](std::uint64_t r) {
    const float* v = in + r * h;
    double mean = 0, sq = 0;
    if (m.norm == model::NormKind::kLayerNorm) {
      for (std::uint64_t j = 0; j < h; ++j) mean += v[j];
      mean /= static_cast<double>(h);
    }
    for (std::uint64_t j = 0; j < h; ++j) sq += (v[j] - mean) * (v[j] - mean);
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(h) + m.norm_eps);
    for (std::uint64_t j = 0; j < h; ++j) {
      out[r * h + j] = static_cast<float>((v[j] - mean) * inv * w.weight[j] + (w.bias.empty() ? 0.0 : w.bias[j]));
    }
  });
  return y;
}

double activation(model::Activation a, double x) {
  switch (a) {
    case model::Activation::kSilu: return x / (1.0 + std::exp(-x));
    case model::Activation::kGelu: return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
    case model::Activation::kGeluTanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
    case model::Activation::kRelu: return x > 0 ? x : 0.0;
  }
  throw std::logic_error("unknown activation");
}

// Rotate-half RoPE of every head of a [rows x heads*hd] matrix; row r is position r % tokens.
void rope(Tensor& x, std::uint64_t heads, std::uint64_t hd, std::uint64_t tokens, const model::ModelConfig& m) {
  const auto rot = static_cast<std::uint64_t>(std::floor(static_cast<double>(hd) * m.rotary_fraction + 1e-9)) & ~std::uint64_t{1};
  const std::uint64_t half = rot / 2, rows = static_cast<std::uint64_t>(x.dim(0));
  const std::vector<double> inv_freq = model::rope_inverse_frequencies(m.rope_theta, rot, m.rope_scaling);
  float* d = x.data<float>().data();
  each_index(rows, half * heads, [&](std::uint64_t r) {
    const double pos = static_cast<double>(r % tokens);
    for (std::uint64_t i = 0; i < half; ++i) {
      const double angle = pos * inv_freq[i];
      const double c = std::cos(angle), s = std::sin(angle);
      for (std::uint64_t hh = 0; hh < heads; ++hh) {
        float* v = d + r * heads * hd + hh * hd;
        const double a = v[i], b = v[i + half];
        v[i] = static_cast<float>(a * c - b * s);
        v[i + half] = static_cast<float>(b * c + a * s);
      }
    }
  });
}

void add_bias(Tensor& x, const std::vector<float>& bias) {
  if (bias.empty()) return;
  const std::size_t n = bias.size();
  auto d = x.data<float>();
  each_index(d.size(), 1, [&](std::uint64_t i) { d[i] += bias[i % n]; });
}

std::atomic<bool>& baseline_attention_only() {
  static std::atomic<bool> only{false};
  return only;
}
bool reference_attention_baseline_only() { return baseline_attention_only().load(std::memory_order_relaxed); }

// What the reference's attention reads and writes: Q [B*T x heads*hd], K and V [B*T x kv_heads*hd]
// after RoPE, the output [B*T x heads*hd].
struct CausalAttention {
  std::uint64_t B, T, heads, kvh, hd;
  double scale;
  const float *qd, *kd, *vd;
  float* ad;
};

// Causal softmax attention of the (sequence, head) pairs [pair0, pair1), in double.
[[gnu::always_inline]] inline void causal_attention_body(const CausalAttention& a, std::uint64_t pair0, std::uint64_t pair1) {
  const std::uint64_t T = a.T, heads = a.heads, kvh = a.kvh, hd = a.hd, q_dim = heads * hd, kv_dim = kvh * hd, group = heads / kvh;
  const double scale = a.scale;
  const float *qd = a.qd, *kd = a.kd, *vd = a.vd;
  float* ad = a.ad;
  // kt: the pair's keys transposed, [hd x T] in double, so each query's scores are summed for all
  // its keys at once, key by key along a row of kt: every score is still the one chain
  // sum_{c ascending} q[c] * k[c] from zero, as a plain loop over c computes it, but the chains
  // of different keys run side by side (one chain at a time was bound by the adder's latency).
  // Queries go in blocks of kQ over tiles of kJ keys, so a tile of kt (hd x kJ doubles, 256 KiB)
  // is read from cache once per block rather than once per query, and a value row once per block
  // in P.V: long contexts were bound by re-reading K and V for every query. Each score and each
  // output element still sums its terms in the same order (c ascending; keys ascending), so the
  // blocking changes no number.
  constexpr std::uint64_t kQ = 4, kJ = 512;
  std::vector<double> p(kQ * T), o(kQ * hd), kt(hd * T), sums(kQ);
  constexpr std::uint64_t kNoKeys = ~std::uint64_t{0};
  std::uint64_t kt_of = kNoKeys;  // the (sequence, KV head) whose keys kt holds
  for (std::uint64_t pair = pair0; pair < pair1; ++pair) {
    const std::uint64_t b = pair / heads, hh = pair % heads, g = hh / group;
    if (kt_of != b * kvh + g) {
      kt_of = b * kvh + g;
      for (std::uint64_t j = 0; j < T; ++j) {
        const float* kj = kd + (b * T + j) * kv_dim + g * hd;
        for (std::uint64_t c = 0; c < hd; ++c) kt[c * T + j] = kj[c];
      }
    }
    for (std::uint64_t i0 = 0; i0 < T; i0 += kQ) {
      const std::uint64_t nq = std::min(kQ, T - i0), keys = i0 + nq;  // query i0 + q sees keys [0, i0 + q]
      const float* qi[kQ] = {};
      for (std::uint64_t q = 0; q < nq; ++q) {
        qi[q] = qd + (b * T + i0 + q) * q_dim + hh * hd;
        std::fill(p.begin() + static_cast<std::ptrdiff_t>(q * T), p.begin() + static_cast<std::ptrdiff_t>(q * T + i0 + q + 1), 0.0);
      }
      for (std::uint64_t j0 = 0; j0 < keys; j0 += kJ) {
        for (std::uint64_t c = 0; c < hd; ++c) {
          const double* row = kt.data() + c * T;
          for (std::uint64_t q = 0; q < nq; ++q) {
            const std::uint64_t end = std::min(j0 + kJ, i0 + q + 1);
            const double qc = qi[q][c];
            double* pq = p.data() + q * T;
            for (std::uint64_t j = j0; j < end; ++j) pq[j] += qc * row[j];
          }
        }
      }
      for (std::uint64_t q = 0; q < nq; ++q) {
        double* pq = p.data() + q * T;
        double mx = -INFINITY, sum = 0;
        for (std::uint64_t j = 0; j <= i0 + q; ++j) {
          pq[j] *= scale;
          mx = std::max(mx, pq[j]);
        }
        for (std::uint64_t j = 0; j <= i0 + q; ++j) sum += pq[j] = std::exp(pq[j] - mx);
        sums[q] = sum;
      }
      std::fill(o.begin(), o.end(), 0.0);
      for (std::uint64_t j = 0; j < keys; ++j) {
        const float* vj = vd + (b * T + j) * kv_dim + g * hd;
        for (std::uint64_t q = 0; q < nq; ++q) {
          if (j > i0 + q) continue;  // a later key than the query
          const double w = p[q * T + j];
          double* oq = o.data() + q * hd;
          for (std::uint64_t c = 0; c < hd; ++c) oq[c] += w * vj[c];
        }
      }
      for (std::uint64_t q = 0; q < nq; ++q) {
        for (std::uint64_t c = 0; c < hd; ++c) ad[(b * T + i0 + q) * q_dim + hh * hd + c] = static_cast<float>(o[q * hd + c] / sums[q]);
      }
    }
  }
}

using CausalAttentionPairs = void (*)(const CausalAttention&, std::uint64_t, std::uint64_t);

void causal_attention_baseline(const CausalAttention& a, std::uint64_t pair0, std::uint64_t pair1) { causal_attention_body(a, pair0, pair1); }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// The same loops in 4-wide AVX2 vectors where the host has them. AVX2 without FMA: every product
// and sum is the IEEE operation the baseline build performs, in the same order per element (the
// vectors run across keys and across the head dimension, whose elements are independent; the
// softmax sum stays one chain), so both builds give the same bits (tested).
__attribute__((target("avx2"))) void causal_attention_avx2(const CausalAttention& a, std::uint64_t pair0, std::uint64_t pair1) {
  causal_attention_body(a, pair0, pair1);
}
#endif

CausalAttentionPairs causal_attention_pairs() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && !reference_attention_baseline_only()) return causal_attention_avx2;
#endif
  return causal_attention_baseline;
}

}  // namespace

ScopedBaselineReferenceAttention::ScopedBaselineReferenceAttention() : previous_(baseline_attention_only().exchange(true)) {}
ScopedBaselineReferenceAttention::~ScopedBaselineReferenceAttention() { baseline_attention_only().store(previous_); }

ReferenceForward::ReferenceForward(const model::ModelConfig& model, const ForwardShape& shape,
                                   const std::vector<std::int32_t>& ids, const WeightSource& weights)
    : model_(model), shape_(shape), x_(f32_matrix(shape.sequences * shape.tokens(), model.hidden)) {
  if (ids.size() != shape.sequences * shape.tokens()) throw std::invalid_argument("token ids do not match the shape");
  weights.embedding_rows(ids, x_.data<float>().data());
}

void ReferenceForward::run_layer(const LayerWeights& w) {
  // Calibrations run this forward layer by layer outside the functional pass's own checks: the
  // host memory limit and a pending interrupt are looked at here too.
  check_host_memory();
  const model::ModelConfig& m = model_;
  const std::uint64_t T = shape_.tokens(), B = shape_.sequences, hd = m.head_dim, heads = m.heads, kvh = m.kv_heads;
  const std::uint64_t q_dim = heads * hd;

  const auto observe = [this](const char* group, const Tensor& in) {
    if (group_observer_) group_observer_(group, in);
  };
  const Tensor hn = norm(m, x_, w.input_norm);
  observe("q_proj", hn);
  Tensor q = kernels::gemm_f32(hn, w.q), k = kernels::gemm_f32(hn, w.k), v = kernels::gemm_f32(hn, w.v);
  add_bias(q, w.q_bias);
  add_bias(k, w.k_bias);
  add_bias(v, w.v_bias);
  rope(q, heads, hd, T, m);
  rope(k, kvh, hd, T, m);
  if (qk_observer_) qk_observer_(q, k);

  // Causal softmax attention, each query over keys 0..itself of its sequence, in double. The
  // (sequence, head) pairs are independent and write disjoint outputs: bands of them on the GEMM
  // threads, the same numbers whatever the split.
  Tensor attn = f32_matrix(B * T, q_dim);
  const float *qd = q.data<float>().data(), *kd = k.data<float>().data(), *vd = v.data<float>().data();
  float* ad = attn.data<float>().data();
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  const std::uint64_t pairs = B * heads;
  const auto threads = static_cast<std::uint64_t>(std::clamp<std::uint64_t>(pairs, 1, kernels::default_gemm_threads()));
  const CausalAttention job{B, T, heads, kvh, hd, scale, qd, kd, vd, ad};
  const auto attend = causal_attention_pairs();
  kernels::parallel_bands(pairs, threads, [&](std::uint64_t p0, std::uint64_t p1) { attend(job, p0, p1); });

  const auto add = [](Tensor& x, const Tensor& y) {
    auto a = x.data<float>();
    auto c = y.data<float>();
    each_index(a.size(), 1, [&](std::uint64_t i) { a[i] += c[i]; });
  };
  observe("o_proj", attn);
  Tensor o = kernels::gemm_f32(attn, w.o);
  add_bias(o, w.o_bias);
  add(x_, o);
  const Tensor hn2 = norm(m, x_, w.post_norm);
  observe(m.gated_mlp ? "gate_proj" : "fc1", hn2);
  Tensor mid = kernels::gemm_f32(hn2, m.gated_mlp ? w.gate : w.up);
  add_bias(mid, m.gated_mlp ? w.gate_bias : w.up_bias);
  auto md = mid.data<float>();
  if (m.gated_mlp) {
    Tensor up = kernels::gemm_f32(hn2, w.up);
    add_bias(up, w.up_bias);
    auto ud = up.data<float>();
    each_index(md.size(), 16, [&](std::uint64_t i) { md[i] = static_cast<float>(activation(m.activation, md[i]) * ud[i]); });
  } else {
    each_index(md.size(), 16, [&](std::uint64_t i) { md[i] = static_cast<float>(activation(m.activation, md[i])); });
  }
  observe(m.gated_mlp ? "down_proj" : "fc2", mid);
  Tensor down = kernels::gemm_f32(mid, w.down);
  add_bias(down, w.down_bias);
  add(x_, down);
}

Tensor ReferenceForward::final_hidden(const NormWeights& final_norm) const {
  const std::uint64_t h = model_.hidden;
  Tensor rows = f32_matrix(shape_.positions(), h);
  std::uint64_t out = 0;
  for (std::uint64_t g = 0; g < shape_.head_groups(); ++g) {
    for (std::uint64_t b = 0; b < shape_.sequences; ++b, ++out) {
      const float* src = x_.data<float>().data() + shape_.row(b, shape_.head_position(g)) * h;
      std::copy(src, src + h, rows.data<float>().data() + out * h);
    }
  }
  return norm(model_, rows, final_norm);
}

}  // namespace socsim::functional
