#include "kernels/attention/attention_core.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace socsim::kernels {

template <class KeyAt>
void RowAttender::attend(const float* q, const float* k, const float* v, std::uint64_t count, KeyAt key_at, std::uint64_t d,
                         float scale, float* o) {
  std::fill(o, o + d, 0.0f);
  if (count == 0) return;  // no key: a zero row, as a fully masked softmax gives
  p_.resize(count);
  float m = -std::numeric_limits<float>::infinity();
  for (std::uint64_t j = 0; j < count; ++j) {
    p_[j] = scale * dot_f32(q, k + key_at(j) * d, d);
    m = std::max(m, p_[j]);
  }
  float sum = 0;
  for (std::uint64_t j = 0; j < count; ++j) {
    p_[j] = std::exp(p_[j] - m);
    sum += p_[j];
  }
  const float r = 1.0f / sum;
  for (std::uint64_t j = 0; j < count; ++j) {
    const float w = p_[j] * r;
    const float* vj = v + key_at(j) * d;
    for (std::uint64_t c = 0; c < d; ++c) o[c] += w * vj[c];
  }
}

void RowAttender::over_prefix(const float* q, const float* k, const float* v, std::uint64_t count, std::uint64_t d, float scale,
                              float* o) {
  attend(q, k, v, count, [](std::uint64_t j) { return j; }, d, scale, o);
}

void RowAttender::over_indices(const float* q, const float* k, const float* v, std::span<const std::int32_t> idx, std::uint64_t d,
                               float scale, float* o) {
  attend(q, k, v, idx.size(), [idx](std::uint64_t j) { return static_cast<std::uint64_t>(idx[j]); }, d, scale, o);
}

}  // namespace socsim::kernels
