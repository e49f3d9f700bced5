#include "sim/runtime/lowering/precision_formats.h"

namespace socsim::runtime {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kFp16: return "fp16";
    case Precision::kW8A8: return "w8a8";
    case Precision::kW8A8Group: return "w8a8-group";
    case Precision::kW4A16: return "w4a16";
  }
  return "?";
}

namespace lowering {

kernels::GemmFormat gemm_format(Precision p) {
  using kernels::GemmWeights;
  switch (p) {
    case Precision::kFp32: return {GemmWeights::kF32};
    case Precision::kFp16: return {GemmWeights::kF16};
    case Precision::kW8A8: return {GemmWeights::kI8};
    case Precision::kW8A8Group: return {GemmWeights::kI8PerGroup, kWeightGroup};
    case Precision::kW4A16: return {GemmWeights::kBlock, kWeightGroup, kernels::BlockFormat::kQ4_0};
  }
  return {};
}

kernels::GemmFormat npu_gemm_format(Precision p) {
  return p == Precision::kFp32 ? gemm_format(Precision::kFp16) : gemm_format(p);
}

hw::DType gpu_float_dtype(Precision p) { return p == Precision::kFp32 ? hw::DType::kFp32 : hw::DType::kFp16; }

double weight_bits(Precision p) {
  switch (p) {
    case Precision::kFp32: return 32;
    case Precision::kFp16: return 16;
    case Precision::kW8A8: return 8;
    case Precision::kW8A8Group: return 8 + 16.0 / kWeightGroup;
    case Precision::kW4A16: return 4.5;
  }
  return 0;
}

double activation_bytes(Precision p) {
  switch (p) {
    case Precision::kFp32: return 4;
    case Precision::kFp16:
    case Precision::kW4A16: return 2;
    case Precision::kW8A8:
    case Precision::kW8A8Group: return 1;
  }
  return 0;
}

}  // namespace lowering
}  // namespace socsim::runtime
