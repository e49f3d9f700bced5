#include "kernels/elementwise/norm.h"

#include <cmath>
#include <stdexcept>

namespace socsim::kernels {

namespace {

void check(const Tensor& x, std::span<const float> w, const char* what) {
  if (x.rank() != 2 || x.type() != ElemType::kF32) throw std::invalid_argument(std::string(what) + " expects an F32 [rows, hidden] tensor");
  if (w.size() != static_cast<std::size_t>(x.dim(1))) throw std::invalid_argument(std::string(what) + ": weight length must equal hidden");
}

}  // namespace

Tensor rms_norm(const Tensor& x, std::span<const float> weight, float eps) {
  check(x, weight, "RMSNorm");
  Tensor y(x.shape(), ElemType::kF32);
  const auto hidden = static_cast<std::size_t>(x.dim(1));
  auto in = x.data<float>();
  auto out = y.data<float>();
  for (std::size_t r = 0; r < static_cast<std::size_t>(x.dim(0)); ++r) {
    const float* v = in.data() + r * hidden;
    float ss = 0;
    for (std::size_t j = 0; j < hidden; ++j) ss += v[j] * v[j];
    const float rstd = 1.0f / std::sqrt(ss / static_cast<float>(hidden) + eps);
    for (std::size_t j = 0; j < hidden; ++j) out[r * hidden + j] = v[j] * rstd * weight[j];
  }
  return y;
}

Tensor layer_norm(const Tensor& x, std::span<const float> weight, std::span<const float> bias, float eps) {
  check(x, weight, "LayerNorm");
  if (bias.size() != weight.size()) throw std::invalid_argument("LayerNorm: bias length must equal hidden");
  Tensor y(x.shape(), ElemType::kF32);
  const auto hidden = static_cast<std::size_t>(x.dim(1));
  const auto n = static_cast<float>(hidden);
  auto in = x.data<float>();
  auto out = y.data<float>();
  for (std::size_t r = 0; r < static_cast<std::size_t>(x.dim(0)); ++r) {
    const float* v = in.data() + r * hidden;
    float sum = 0;
    for (std::size_t j = 0; j < hidden; ++j) sum += v[j];
    const float mean = sum / n;
    float var = 0;
    for (std::size_t j = 0; j < hidden; ++j) var += (v[j] - mean) * (v[j] - mean);
    const float rstd = 1.0f / std::sqrt(var / n + eps);
    for (std::size_t j = 0; j < hidden; ++j) out[r * hidden + j] = (v[j] - mean) * rstd * weight[j] + bias[j];
  }
  return y;
}

}  // namespace socsim::kernels
