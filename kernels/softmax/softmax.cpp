#include "kernels/softmax/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "kernels/softmax/poly_exp2.h"

namespace socsim::kernels {

namespace {

void check_same_matrix(const Tensor& x, ElemType t) {
  if (x.rank() != 2) throw std::invalid_argument("softmax expects a [rows, cols] tensor");
  if (x.type() != t) throw std::invalid_argument(std::string("softmax expects ") + elem_type_name(t));
}

}  // namespace

void softmax_row_f32(std::span<const float> in, std::span<float> out) {
  if (in.size() != out.size()) throw std::invalid_argument("softmax row: input and output sizes differ");
  float m = -std::numeric_limits<float>::infinity();
  for (float v : in) m = std::max(m, v);
  if (m == -std::numeric_limits<float>::infinity()) {
    std::fill(out.begin(), out.end(), 0.0f);
    return;
  }
  float sum = 0;
  for (std::size_t j = 0; j < in.size(); ++j) {
    out[j] = std::exp(in[j] - m);
    sum += out[j];
  }
  const float r = 1.0f / sum;
  for (float& v : out) v *= r;
}

Tensor softmax_f32(const Tensor& x) {
  check_same_matrix(x, ElemType::kF32);
  Tensor y(x.shape(), ElemType::kF32);
  const auto cols = static_cast<std::size_t>(x.dim(1));
  auto in = x.data<float>();
  auto out = y.data<float>();
  for (std::size_t r = 0; r < static_cast<std::size_t>(x.dim(0)); ++r) {
    softmax_row_f32(in.subspan(r * cols, cols), out.subspan(r * cols, cols));
  }
  return y;
}

half exp_f16(half d, ExpVariant v, const LutExpTable* lut) {
  switch (v) {
    case ExpVariant::kExact: return to_half(std::exp(to_float(d)));
    case ExpVariant::kPoly: return exp_poly_fp16(d);
    case ExpVariant::kLut:
      if (lut == nullptr) throw std::invalid_argument("LUT exp needs a LutExpTable");
      return lut->lookup(d);
  }
  throw std::invalid_argument("unknown exp variant");
}

void softmax_row_f16(std::span<const half> in, std::span<half> out, ExpVariant v, const LutExpTable* lut) {
  if (in.size() != out.size()) throw std::invalid_argument("softmax row: input and output sizes differ");
  float m = -std::numeric_limits<float>::infinity();
  for (half h : in) m = std::max(m, to_float(h));
  if (m == -std::numeric_limits<float>::infinity()) {
    std::fill(out.begin(), out.end(), to_half(0.0f));
    return;
  }
  // The vector unit keeps e in FP16 and promotes only the running sum to FP32 (TTS Algorithm 1).
  float sum = 0;
  for (std::size_t j = 0; j < in.size(); ++j) {
    const half d = to_half(to_float(in[j]) - m);  // <= 0: m is an FP16 value of the row
    out[j] = exp_f16(d, v, lut);
    sum += to_float(out[j]);
  }
  // Normalize in FP32: 1/sum in FP16 would go subnormal beyond ~16K uniform columns.
  const float r = 1.0f / sum;
  for (half& e : out) e = to_half(to_float(e) * r);
}

Tensor softmax_f16(const Tensor& x, ExpVariant v, const LutExpTable* lut) {
  check_same_matrix(x, ElemType::kF16);
  std::unique_ptr<LutExpTable> own;
  if (v == ExpVariant::kLut && lut == nullptr) {
    own = std::make_unique<LutExpTable>();
    lut = own.get();
  }
  Tensor y(x.shape(), ElemType::kF16);
  const auto cols = static_cast<std::size_t>(x.dim(1));
  auto in = x.data<half>();
  auto out = y.data<half>();
  for (std::size_t r = 0; r < static_cast<std::size_t>(x.dim(0)); ++r) {
    softmax_row_f16(in.subspan(r * cols, cols), out.subspan(r * cols, cols), v, lut);
  }
  return y;
}

}  // namespace socsim::kernels
