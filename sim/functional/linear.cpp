#include "sim/functional/linear.h"

#include "kernels/gemm/gemm_float.h"
#include "kernels/gemm/gemm_group.h"
#include "kernels/gemm/gemm_int8.h"
#include "kernels/gemm/gemm_w4a16.h"
#include "sim/functional/tensor_util.h"

namespace socsim::functional {

using kernels::Tensor;
using runtime::Precision;

Linear::Linear(const Tensor& w, Orientation orientation, std::optional<float> weight_scale)
    : w_(w), orientation_(orientation), weight_scale_(weight_scale) {}

const Tensor& Linear::in_out() {
  if (orientation_ == Orientation::kInOut) return w_;
  if (!other_orientation_) other_orientation_ = transpose(w_);
  return *other_orientation_;
}

const Tensor& Linear::out_in() {
  if (orientation_ == Orientation::kOutIn) return w_;
  if (!other_orientation_) other_orientation_ = transpose(w_);
  return *other_orientation_;
}

Tensor Linear::apply(const Tensor& x, Precision precision, std::optional<float> activation_scale) {
  const auto quantize_x = [&] {
    return activation_scale ? kernels::quantize_per_tensor(x, *activation_scale) : kernels::quantize_per_tensor(x);
  };
  switch (precision) {
    case Precision::kFp32: return kernels::gemm_f32(x, in_out());
    case Precision::kFp16:
      if (!f16_) f16_ = to_half(in_out());
      return to_float(kernels::gemm_f16(to_half(x), *f16_));
    case Precision::kW8A8: {
      if (!i8_) i8_ = weight_scale_ ? kernels::quantize_per_tensor(in_out(), *weight_scale_) : kernels::quantize_per_tensor(in_out());
      const kernels::QuantizedI8 xq = quantize_x();
      return kernels::dequantize_i32(kernels::gemm_i8(xq.q, i8_->q), xq.scale, i8_->scale);
    }
    case Precision::kW8A8Group: {
      if (!group_) group_ = kernels::quantize_per_group(in_out(), kWeightGroup);
      const kernels::QuantizedI8 xq = quantize_x();
      return kernels::gemm_i8_per_group(xq.q, xq.scale, *group_);
    }
    case Precision::kW4A16:
      if (!q4_) q4_ = kernels::quantize_blocks(out_in(), kernels::BlockFormat::kQ4_0);
      return to_float(kernels::gemm_w4a16(to_half(x), *q4_));
  }
  throw std::logic_error("unknown precision");
}

}  // namespace socsim::functional
