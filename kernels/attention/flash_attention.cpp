#include "kernels/attention/flash_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "kernels/attention/attention_core.h"
#include "kernels/attention/head_bands.h"
#include "kernels/softmax/softmax.h"

namespace socsim::kernels {

namespace {

// FP16 values held in floats: a product of two is exact in FP32, so dot_f32 over them is the
// FP32-accumulated FP16 GEMM HMX performs.
[[gnu::always_inline]] inline std::vector<float> as_fp16_values(const Tensor& t) {
  std::vector<float> out(t.numel());
  if (t.type() == ElemType::kF16) {
    auto s = t.data<half>();
    for (std::size_t i = 0; i < s.size(); ++i) out[i] = to_float(s[i]);
  } else {
    auto s = t.data<float>();
    for (std::size_t i = 0; i < s.size(); ++i) out[i] = to_float(to_half(s[i]));
  }
  return out;
}

[[gnu::always_inline]] inline half hmul(half a, half b) { return to_half(to_float(a) * to_float(b)); }
[[gnu::always_inline]] inline half hadd(half a, half b) { return to_half(to_float(a) + to_float(b)); }
[[gnu::always_inline]] inline half hsub(half a, half b) { return to_half(to_float(a) - to_float(b)); }

}  // namespace

void validate_flash_params(const FlashParams& p) {
  if (p.kv_tile != 32 && p.kv_tile != 64) throw std::invalid_argument("FlashAttention KV tiles hold 32 or 64 keys");
  if (p.q_block == 0) throw std::invalid_argument("FlashAttention needs a query block of at least one row");
}

namespace {

// What every head's loop reads: the rounded operands, the shape and the parameters.
struct FlashInputs {
  const AttentionShape& s;
  const FlashParams& p;
  const LutExpTable* lut;
  float sc;
  const float *qh, *kh, *vh;
  float* out;  // [heads, q_len, d]
};

// Heads [h0, h1) (bands of heads run on the GEMM threads: head_bands.h).
[[gnu::always_inline]] inline void flash_heads_body(const FlashInputs& in, std::uint64_t h0, std::uint64_t h1) {
  const AttentionShape& s = in.s;
  const FlashParams& p = in.p;
  const LutExpTable* lut = in.lut;
  const float sc = in.sc;
  const std::uint64_t d = s.head_dim, Bc = p.kv_tile, Br = p.q_block;
  const half neg_inf = half_from_bits(0xfc00);
  std::vector<half> m(Br), acc(Br * d), sr(Bc), pr(Bc);
  std::vector<float> l(Br), pv(d);
  for (std::uint64_t h = h0; h < h1; ++h) {
    const float* kb = in.kh + s.kv_head_of(h) * s.kv_len * d;
    const float* vb = in.vh + s.kv_head_of(h) * s.kv_len * d;
    for (std::uint64_t i0 = 0; i0 < s.q_len; i0 += Br) {
      const std::uint64_t rows = std::min(Br, s.q_len - i0);
      const std::uint64_t keys = s.visible(i0 + rows - 1);  // tiles past the last row's position are skipped
      std::fill(m.begin(), m.end(), neg_inf);
      std::fill(l.begin(), l.end(), 0.0f);
      std::fill(acc.begin(), acc.end(), to_half(0.0f));
      for (std::uint64_t j0 = 0; j0 < keys; j0 += Bc) {
        for (std::uint64_t r = 0; r < rows; ++r) {
          const std::uint64_t vis = s.visible(i0 + r);
          if (j0 >= vis) continue;  // the whole tile is masked for this row: nothing changes
          const std::uint64_t cnt = std::min({Bc, keys - j0, vis - j0});
          const float* qi = in.qh + (h * s.q_len + i0 + r) * d;
          half mx = m[r];
          for (std::uint64_t j = 0; j < cnt; ++j) {
            sr[j] = to_half(sc * dot_f32(qi, kb + (j0 + j) * d, d));
            mx = std::max(mx, sr[j]);
          }
          const half a = m[r] == neg_inf ? to_half(0.0f) : exp_f16(hsub(m[r], mx), p.exp, lut);
          float rowsum = 0;
          for (std::uint64_t j = 0; j < cnt; ++j) {
            pr[j] = exp_f16(hsub(sr[j], mx), p.exp, lut);
            rowsum += to_float(pr[j]);
          }
          l[r] = to_float(a) * l[r] + rowsum;
          std::fill(pv.begin(), pv.end(), 0.0f);
          for (std::uint64_t j = 0; j < cnt; ++j) {
            const float w = to_float(pr[j]);
            const float* vj = vb + (j0 + j) * d;
            for (std::uint64_t c = 0; c < d; ++c) pv[c] += w * vj[c];
          }
          half* oi = acc.data() + r * d;
          for (std::uint64_t c = 0; c < d; ++c) oi[c] = hadd(hmul(a, oi[c]), to_half(pv[c]));
          m[r] = mx;
        }
      }
      for (std::uint64_t r = 0; r < rows; ++r) {
        float* out = in.out + (h * s.q_len + i0 + r) * d;
        const float inv = 1.0f / l[r];
        for (std::uint64_t c = 0; c < d; ++c) out[c] = to_float(acc[r * d + c]) * inv;
      }
    }
  }
}

using FlashHeads = void (*)(const FlashInputs&, std::uint64_t, std::uint64_t);

// The kernel's body, compiled twice: plain (baseline x86-64) and inlined into an AVX+F16C
// version, where its FP16 <-> FP32 conversions (several per element of every tile) are single
// instructions instead of libgcc calls. F16C rounds to nearest even as libgcc does, and the
// second version enables no FMA (no contraction), so both compute bit-identical results. `heads`
// is the loop over heads of the same build.
[[gnu::always_inline]] inline Tensor flash_attention_body(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0,
                                                          const FlashParams& p, const LutExpTable* lut, std::optional<float> scale,
                                                          FlashHeads heads) {
  validate_flash_params(p);
  if (q.type() != ElemType::kF32 && q.type() != ElemType::kF16) throw std::invalid_argument("FlashAttention takes F32 or F16 tensors");
  const AttentionShape s = attention_shape_of(q, k, v, p0, q.type());
  std::unique_ptr<LutExpTable> own;
  if (p.exp == ExpVariant::kLut && lut == nullptr) {
    own = std::make_unique<LutExpTable>();
    lut = own.get();
  }
  const std::vector<float> qh = as_fp16_values(q), kh = as_fp16_values(k), vh = as_fp16_values(v);
  Tensor o(q.shape(), ElemType::kF32);
  const FlashInputs in{s, p, lut, resolve_scale(s, scale), qh.data(), kh.data(), vh.data(), o.data<float>().data()};
  for_head_bands(s, [&](std::uint64_t h0, std::uint64_t h1) { heads(in, h0, h1); });
  return o;
}

void flash_heads_baseline(const FlashInputs& in, std::uint64_t h0, std::uint64_t h1) { flash_heads_body(in, h0, h1); }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx,f16c"))) void flash_heads_f16c(const FlashInputs& in, std::uint64_t h0, std::uint64_t h1) {
  flash_heads_body(in, h0, h1);
}
__attribute__((target("avx,f16c"))) Tensor flash_attention_f16c(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0,
                                                               const FlashParams& p, const LutExpTable* lut, std::optional<float> scale) {
  return flash_attention_body(q, k, v, p0, p, lut, scale, flash_heads_f16c);
}
bool host_has_f16c() { return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c"); }
#endif

}  // namespace

Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const FlashParams& p,
                       const LutExpTable* lut, std::optional<float> scale) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  static const bool f16c = host_has_f16c();
  if (f16c) return flash_attention_f16c(q, k, v, p0, p, lut, scale);
#endif
  return flash_attention_body(q, k, v, p0, p, lut, scale, flash_heads_baseline);
}

Tensor flash_attention_baseline(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const FlashParams& p,
                                const LutExpTable* lut, std::optional<float> scale) {
  return flash_attention_body(q, k, v, p0, p, lut, scale, flash_heads_baseline);
}

}  // namespace socsim::kernels
