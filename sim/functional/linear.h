#pragma once
// One weight matrix of a linear layer and the matmul at each precision the plan can ask for.
// Quantized forms are made on first use and kept while the layer is alive: a layer's matmul may
// run at different precisions in prefill and decode (npu-naive: per-group INT8 on the NPU, then
// per-tensor INT8 on the CPU), and each form is made once, not per chunk or step.
//
//   kFp32      gemm_f32
//   kFp16      FP16 weights and activations, gemm_f16 (FP32 accumulation, one FP16 rounding per
//              output; bit-identical to the HMX tile GEMM gemm_f16_hmx, so the NPU needs no
//              separate path)
//   kW8A8      per-tensor INT8 activations x per-tensor INT8 weights, gemm_i8 then dequantize_i32;
//              the activation scale per OutlierSpec (runtime::OutlierHandling):
//                kMinMax  min-max of this matmul's input
//                kShadow  an offline scale, standing in for llm.npu's corpus profiling: the
//                         (c+1)-th largest input-channel max / 127, so the c channels with the
//                         largest values fall out of range (c = outlier_channels); the input is
//                         split exactly (kernels/quant/outliers.h), inliers through the INT8 GEMM,
//                         the sparse excess times the dequantized weight rows in FP32, added
//                kClip    the same scale, the excess dropped (values saturate at +-127)
//   kW8A8Group per-tensor INT8 activations x per-group INT8 weights (groups of 128 along k, as
//              the runtime's op lowering costs them), gemm_i8_per_group
//   kW4A16     Q4_0 weights x FP16 activations, gemm_w4a16 (ggml's conventional groups); with a
//              TTS weight form (tile groups: kernels/quant/tile_group_quant.h; Q8_0 for the
//              FFN-down when asked) the tile groups' FP16 weights through gemm_f16, which is the
//              same product the HMX kernel computes on the dequantized tiles
// Results come back as FP32 [m x n].
#include <optional>
#include <vector>

#include "kernels/quant/block_quant.h"
#include "kernels/quant/group_quant.h"
#include "kernels/quant/int8_quant.h"
#include "kernels/tensor/tensor.h"
#include "sim/runtime/job.h"

namespace socsim::functional {

// The per-group INT8 group size (sim/runtime/op_lowering.cpp's kGroup, which times the split).
inline constexpr std::int64_t kWeightGroup = 128;

// Whether a precision's product for a row depends on that row alone, so that rows may be
// multiplied together or apart with the same bits: FP32, FP16 and W4A16 (per-element activation
// conversion, each output one chain over k in order); not the INT8 precisions, whose activation
// scale is the whole input's.
bool row_independent(runtime::Precision precision);

class Linear {
 public:
  enum class Orientation {
    kInOut,  // W[k x n], the GEMM kernels' orientation (decoder-layer weights)
    kOutIn,  // [n x k], Hugging Face's and the head's (lm_head rows)
  };
  // `w` must outlive this. `weight_scale`: the per-tensor INT8 weight scale to use instead of
  // w's own max, for a block of a larger matrix (the head, processed in vocabulary blocks).
  Linear(const kernels::Tensor& w, Orientation orientation, std::optional<float> weight_scale = std::nullopt);

  // x: FP32 [m x k]. `activation_scale`: the per-tensor INT8 activation scale when the planned
  // matmul's input has more rows than x (padding-free subset); default: x's own min-max.
  kernels::Tensor apply(const kernels::Tensor& x, runtime::Precision precision,
                        std::optional<float> activation_scale = std::nullopt);
  // kW8A8 with an outlier handling other than min-max (see above); other precisions ignore it.
  // `offline_scale`: the profiled activation scale (llm.npu's calibration); without it, the scale
  // that leaves exactly `outlier_channels` of x's own channels out of range.
  kernels::Tensor apply(const kernels::Tensor& x, runtime::Precision precision, runtime::OutlierHandling outliers,
                        std::uint32_t outlier_channels, std::optional<float> offline_scale = std::nullopt);
  // kW8A8, x's rows in blocks of `block_rows` (the last may be shorter), each block quantized with
  // its own activation scale: its min-max, or scales[i] for block i when given. The bits of
  // apply(block, kW8A8[, scales[i]]) for each block alone (INT8 products are exact and each row's
  // are its own), in one GEMM.
  kernels::Tensor apply_w8a8_row_blocks(const kernels::Tensor& x, std::int64_t block_rows, const std::vector<float>& scales = {});
  // kW4A16 with TTS's weight forms: `format` blocks, in tile groups or ggml's conventional groups
  // (other precisions: as apply(x, precision)).
  kernels::Tensor apply_block(const kernels::Tensor& x, runtime::Precision precision, kernels::BlockFormat format, bool tile_groups);

 private:
  const kernels::Tensor& in_out();  // W[k x n] FP32
  // ggml blocks along k of the [n x k] orientation; an in-out weight is quantized through tiles of
  // its transpose, never transposed whole (a second FP32 copy of the weight, written and read once).
  kernels::BlockQuantized out_in_blocks(kernels::BlockFormat format) const;
  const kernels::QuantizedI8& weights_i8();

  const kernels::Tensor& w_;
  Orientation orientation_;
  std::optional<float> weight_scale_;
  std::optional<kernels::Tensor> other_orientation_, f16_;
  std::optional<kernels::QuantizedI8> i8_;
  std::optional<kernels::GroupQuantizedI8> group_;
  std::optional<kernels::BlockQuantized> q4_;
  std::optional<kernels::Tensor> tile_groups_[2];  // FP16 [k x n] of Q4_0 / Q8_0 tile groups
  std::optional<kernels::BlockQuantized> q8_;     // conventional Q8_0
};

}  // namespace socsim::functional
