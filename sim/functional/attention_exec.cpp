#include "sim/functional/attention_exec.h"

#include "kernels/tensor/kernel_time.h"
#include "kernels/attention/flash_attention.h"
#include "kernels/attention/full_attention.h"
#include "kernels/attention/int8_attention.h"

namespace socsim::functional {

AttentionKind attention_kind(const OpPlacement& p) {
  using runtime::Precision;
  switch (p.unit) {
    // FP16 on the CPU: FP16 operands and products with an exact exp (the FP16 KV cache).
    case kernels::Unit::kCpu: return p.precision == Precision::kFp16 ? AttentionKind::kFlashExact : AttentionKind::kF32;
    case kernels::Unit::kNpu:
      if (p.precision == Precision::kW8A8 || p.precision == Precision::kW8A8Group) return AttentionKind::kInt8;
      // The FP16 flash kernel's exp is the job's (tts.exp); kExact is the FP32 polynomial on HVX.
      switch (p.npu_kernels.exp) {
        case kernels::ExpVariant::kLut: return AttentionKind::kFlashLut;
        case kernels::ExpVariant::kPoly: return AttentionKind::kFlashPoly;
        case kernels::ExpVariant::kExact: return AttentionKind::kFlashExact;
      }
      return AttentionKind::kFlashLut;
    case kernels::Unit::kGpu: return p.precision == Precision::kFp32 ? AttentionKind::kF32 : AttentionKind::kFlashExact;
  }
  return AttentionKind::kF32;
}

const char* attention_kind_name(AttentionKind k) {
  switch (k) {
    case AttentionKind::kF32: return "fp32";
    case AttentionKind::kInt8: return "int8";
    case AttentionKind::kFlashLut: return "fp16-flash-lut";
    case AttentionKind::kFlashExact: return "fp16-flash-exact";
    case AttentionKind::kFlashPoly: return "fp16-flash-poly";
  }
  return "?";
}

kernels::Tensor run_attention(AttentionKind kind, const kernels::Tensor& q, const kernels::Tensor& k, const kernels::Tensor& v,
                              std::uint64_t p0, const kernels::LutExpTable& lut) {
  const kernels::ScopedKernelTime timed;
  switch (kind) {
    case AttentionKind::kF32: return kernels::attention_f32(q, k, v, p0);
    case AttentionKind::kInt8: return kernels::attention_int8(q, k, v, p0);
    case AttentionKind::kFlashLut: return kernels::flash_attention(q, k, v, p0, {64, 32, kernels::ExpVariant::kLut}, &lut);
    case AttentionKind::kFlashExact: return kernels::flash_attention(q, k, v, p0, {64, 32, kernels::ExpVariant::kExact});
    case AttentionKind::kFlashPoly: return kernels::flash_attention(q, k, v, p0, {64, 32, kernels::ExpVariant::kPoly});
  }
  throw std::logic_error("unknown attention kind");
}

}  // namespace socsim::functional
