#include "kernels/quant/group_quant.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/quant/int8_quant.h"

namespace socsim::kernels {

GroupQuantizedI8 quantize_per_group(const Tensor& w, std::int64_t group) {
  if (w.rank() != 2 || w.type() != ElemType::kF32) throw std::invalid_argument("per-group quantization takes a float32 matrix");
  if (group < 1) throw std::invalid_argument("quantization group must have at least one row");
  const std::int64_t k = w.dim(0), n = w.dim(1), groups = (k + group - 1) / group;
  GroupQuantizedI8 out{Tensor::matrix(k, n, ElemType::kI8), Tensor::matrix(groups, n, ElemType::kF32), group};
  const auto x = w.data<float>();
  auto q = out.q.data<std::int8_t>();
  auto s = out.scales.data<float>();
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t k0 = g * group, k1 = std::min(k, k0 + group);
    float* sg = s.data() + g * n;
    for (std::int64_t kk = k0; kk < k1; ++kk) {
      for (std::int64_t j = 0; j < n; ++j) sg[j] = std::max(sg[j], std::fabs(x[kk * n + j]));
    }
    for (std::int64_t j = 0; j < n; ++j) sg[j] = sg[j] > 0 ? sg[j] / 127.0f : 1.0f;
    for (std::int64_t kk = k0; kk < k1; ++kk) {
      for (std::int64_t j = 0; j < n; ++j) q[kk * n + j] = quantize_value(x[kk * n + j], sg[j]);
    }
  }
  return out;
}

Tensor dequantize_per_group(const GroupQuantizedI8& w) {
  const std::int64_t k = w.k(), n = w.n();
  Tensor y = Tensor::matrix(k, n, ElemType::kF32);
  const auto q = w.q.data<std::int8_t>();
  const auto s = w.scales.data<float>();
  auto out = y.data<float>();
  for (std::int64_t kk = 0; kk < k; ++kk) {
    const float* sg = s.data() + kk / w.group * n;
    for (std::int64_t j = 0; j < n; ++j) out[kk * n + j] = static_cast<float>(q[kk * n + j]) * sg[j];
  }
  return y;
}

}  // namespace socsim::kernels
