#include "sim/functional/linear.h"

#include "kernels/gemm/gemm_float.h"
#include "kernels/gemm/gemm_group.h"
#include "kernels/gemm/gemm_int8.h"
#include "kernels/gemm/gemm_w4a16.h"
#include "kernels/quant/outliers.h"
#include "kernels/quant/tile_group_quant.h"
#include "kernels/tensor/kernel_time.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>
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

kernels::BlockQuantized Linear::out_in_blocks(kernels::BlockFormat format) const {
  if (orientation_ == Orientation::kOutIn) return kernels::quantize_blocks(w_, format);
  return kernels::quantize_blocks_of_transpose(w_, format);
}

const kernels::QuantizedI8& Linear::weights_i8() {
  if (!i8_) i8_ = weight_scale_ ? kernels::quantize_per_tensor(in_out(), *weight_scale_) : kernels::quantize_per_tensor(in_out());
  return *i8_;
}

namespace {

// The offline scale of kShadow / kClip: the (c+1)-th largest input-channel max over 127.
float offline_scale(const Tensor& x, std::uint32_t c) {
  const std::int64_t rows = x.dim(0), cols = x.dim(1);
  std::vector<float> channel_max(static_cast<std::size_t>(cols), 0.0f);
  const float* p = x.data<float>().data();
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < cols; ++j) channel_max[j] = std::max(channel_max[j], std::fabs(p[r * cols + j]));
  }
  const std::size_t keep = std::min<std::size_t>(c, channel_max.size() - 1);
  std::nth_element(channel_max.begin(), channel_max.begin() + static_cast<std::ptrdiff_t>(keep), channel_max.end(), std::greater<float>());
  const float t = channel_max[keep];
  return t > 0 ? t / 127.0f : 1.0f;
}

}  // namespace

bool row_independent(Precision precision) {
  return precision == Precision::kFp32 || precision == Precision::kFp16 || precision == Precision::kW4A16;
}

Tensor Linear::apply(const Tensor& x, Precision precision, runtime::OutlierHandling outliers, std::uint32_t outlier_channels,
                     std::optional<float> profiled) {
  if (precision != Precision::kW8A8 || outliers == runtime::OutlierHandling::kMinMax) return apply(x, precision);
  const float scale = profiled ? *profiled : offline_scale(x, outlier_channels);
  auto split = kernels::split_outliers(x, scale);
  const auto& w = weights_i8();
  const kernels::QuantizedI8 xq = kernels::quantize_per_tensor(split.inliers, scale);
  Tensor y = kernels::dequantize_i32(kernels::gemm_i8(xq.q, w.q), xq.scale, w.scale);
  if (outliers == runtime::OutlierHandling::kClip) return y;
  // The shadow: each outlier value times its channel's dequantized weight row, in FP32, on the
  // side (the CPU in llm.npu), added to the INT8 result.
  const std::int64_t n = y.dim(1);
  float* out = y.data<float>().data();
  const std::int8_t* wq = w.q.data<std::int8_t>().data();
  for (const auto& e : split.outliers.entries) {
    const float a = e.value * w.scale;
    const std::int8_t* row = wq + static_cast<std::int64_t>(e.col) * n;
    float* o = out + static_cast<std::int64_t>(e.row) * n;
    for (std::int64_t j = 0; j < n; ++j) o[j] += a * static_cast<float>(row[j]);
  }
  return y;
}

Tensor Linear::apply(const Tensor& x, Precision precision, std::optional<float> activation_scale) {
  // The weights in the precision's form first (made once, cached): not the kernels' arithmetic.
  switch (precision) {
    case Precision::kFp32: break;  // read in its stored orientation (gemm_f32_out_in): nothing to make
    case Precision::kFp16:
      if (!f16_) f16_ = to_half(in_out());
      break;
    case Precision::kW8A8: weights_i8(); break;
    case Precision::kW8A8Group:
      if (!group_) group_ = kernels::quantize_per_group(in_out(), kWeightGroup);
      break;
    case Precision::kW4A16:
      if (!q4_) q4_ = out_in_blocks(kernels::BlockFormat::kQ4_0);
      break;
  }
  const kernels::ScopedKernelTime timed;
  const auto quantize_x = [&] {
    return activation_scale ? kernels::quantize_per_tensor(x, *activation_scale) : kernels::quantize_per_tensor(x);
  };
  switch (precision) {
    case Precision::kFp32:
      return orientation_ == Orientation::kOutIn ? kernels::gemm_f32_out_in(x, w_) : kernels::gemm_f32(x, w_);
    case Precision::kFp16: return to_float(kernels::gemm_f16(to_half(x), *f16_));
    case Precision::kW8A8: {
      const auto& w = weights_i8();
      const kernels::QuantizedI8 xq = quantize_x();
      return kernels::dequantize_i32(kernels::gemm_i8(xq.q, w.q), xq.scale, w.scale);
    }
    case Precision::kW8A8Group: {
      const kernels::QuantizedI8 xq = quantize_x();
      return kernels::gemm_i8_per_group(xq.q, xq.scale, *group_);
    }
    case Precision::kW4A16: return to_float(kernels::gemm_w4a16(to_half(x), *q4_));
  }
  throw std::logic_error("unknown precision");
}

Tensor Linear::apply_w8a8_row_blocks(const Tensor& x, std::int64_t block_rows, const std::vector<float>& given) {
  if (x.rank() != 2 || x.type() != kernels::ElemType::kF32) {
    throw std::invalid_argument(std::string("W8A8 row blocks take a float32 matrix, not a rank-") + std::to_string(x.rank()) + " " +
                                kernels::elem_type_name(x.type()) + " tensor");
  }
  if (block_rows <= 0) throw std::invalid_argument("row blocks of a matrix need a positive block height, not " + std::to_string(block_rows));
  if (!given.empty() && given.size() != static_cast<std::size_t>((x.dim(0) + block_rows - 1) / block_rows)) {
    throw std::invalid_argument("row blocks need one activation scale per block");
  }
  const auto& w = weights_i8();
  const kernels::ScopedKernelTime timed;
  const std::int64_t m = x.dim(0), k = x.dim(1);
  const auto rows_of = [](const Tensor& t, std::int64_t r0, std::int64_t rows, kernels::ElemType type) {
    Tensor out = Tensor::matrix(rows, t.dim(1), type);
    const std::size_t row_bytes = t.bytes() / static_cast<std::size_t>(t.dim(0));
    std::memcpy(out.raw().data(), t.raw().data() + static_cast<std::size_t>(r0) * row_bytes, static_cast<std::size_t>(rows) * row_bytes);
    return out;
  };
  Tensor q = Tensor::matrix(m, k, kernels::ElemType::kI8);
  std::vector<float> scales;
  for (std::int64_t r0 = 0; r0 < m; r0 += block_rows) {
    const std::int64_t rows = std::min(block_rows, m - r0);
    const Tensor block = rows_of(x, r0, rows, kernels::ElemType::kF32);
    const kernels::QuantizedI8 b = given.empty() ? kernels::quantize_per_tensor(block)
                                                 : kernels::quantize_per_tensor(block, given[static_cast<std::size_t>(r0 / block_rows)]);
    std::memcpy(q.raw().data() + r0 * k, b.q.raw().data(), static_cast<std::size_t>(rows * k));
    scales.push_back(b.scale);
  }
  const Tensor acc = kernels::gemm_i8(q, w.q);
  const std::int64_t n = acc.dim(1);
  Tensor y = Tensor::matrix(m, n, kernels::ElemType::kF32);
  for (std::int64_t r0 = 0, i = 0; r0 < m; r0 += block_rows, ++i) {
    const std::int64_t rows = std::min(block_rows, m - r0);
    const Tensor part = kernels::dequantize_i32(rows_of(acc, r0, rows, kernels::ElemType::kI32), scales[static_cast<std::size_t>(i)], w.scale);
    std::memcpy(y.data<float>().data() + r0 * n, part.data<float>().data(), static_cast<std::size_t>(rows * n) * sizeof(float));
  }
  return y;
}

kernels::Tensor Linear::apply_block(const kernels::Tensor& x, runtime::Precision precision, kernels::BlockFormat format, bool tile_groups) {
  if (precision != runtime::Precision::kW4A16 || (!tile_groups && format == kernels::BlockFormat::kQ4_0)) return apply(x, precision);
  if (!tile_groups) {
    if (!q8_) q8_ = out_in_blocks(kernels::BlockFormat::kQ8_0);
    const kernels::ScopedKernelTime timed;
    return to_float(kernels::gemm_w4a16(to_half(x), *q8_));
  }
  auto& w = tile_groups_[format == kernels::BlockFormat::kQ4_0 ? 0 : 1];
  if (!w) w = kernels::tile_group_weights_to_half(kernels::quantize_tile_groups(in_out(), format));
  const kernels::ScopedKernelTime timed;
  return to_float(kernels::gemm_f16(to_half(x), *w));
}

}  // namespace socsim::functional
