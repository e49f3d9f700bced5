#pragma once
// One query row of FP32 attention: s_j = scale * q.k_j over a set of keys, exact max-subtracted
// softmax, o = sum_j p_j v_j. The keys are either a prefix [0, count) (dense causal attention)
// or an index list (sparse and block-sparse attention); both go through the same arithmetic, so
// sparse attention over all visible keys reproduces dense attention bit for bit.
// The object owns the score scratch so the row loop does not allocate.
#include <cstdint>
#include <span>
#include <vector>

namespace socsim::kernels {

// q.k in FP32 with 8 partial sums (vectorizable; the order is fixed, so results are deterministic).
// Inline so that a kernel built for wider vectors (the AVX+F16C FlashAttention) computes it in its
// own registers: the same operations in the same order, so the same bits, as long as the caller's
// target enables no FMA (GCC would contract the products into the sums).
[[gnu::always_inline]] inline float dot_f32(const float* a, const float* b, std::uint64_t d) {
  float acc[8] = {};
  std::uint64_t t = 0;
  for (; t + 8 <= d; t += 8) {
    for (int u = 0; u < 8; ++u) acc[u] += a[t + u] * b[t + u];
  }
  for (; t < d; ++t) acc[t % 8] += a[t] * b[t];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

class RowAttender {
 public:
  // k, v point at the kv head's [n, d] rows.
  void over_prefix(const float* q, const float* k, const float* v, std::uint64_t count, std::uint64_t d, float scale, float* o);
  void over_indices(const float* q, const float* k, const float* v, std::span<const std::int32_t> idx, std::uint64_t d,
                    float scale, float* o);

 private:
  template <class KeyAt>
  void attend(const float* q, const float* k, const float* v, std::uint64_t count, KeyAt key_at, std::uint64_t d, float scale, float* o);
  std::vector<float> p_;
};

}  // namespace socsim::kernels
