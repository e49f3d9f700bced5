#pragma once
// Which attention kernel a planned attention op runs, from its unit and precision:
//   CPU, any precision        attention_f32 (FP32 throughout, what llama.cpp-like CPU code does)
//   NPU, W8A8 / W8A8Group     attention_int8 (Q, K, V, P quantized: the quantized static graph)
//   NPU, otherwise            flash_attention with the LUT exp (FP16 HMX/HVX, TTS paper 5.2.1)
//   GPU, FP32                 attention_f32
//   GPU, otherwise            flash_attention with the exact exp: FP16 math as OpenCL engines
//                             run it, with the GPU's native exp rather than a table
// Q [heads, m, d], K/V [kv_heads, n, d] F32 with queries starting at position p0; out F32.
#include <cstdint>

#include "kernels/softmax/lut_exp.h"
#include "kernels/tensor/tensor.h"
#include "sim/functional/plan_placement.h"

namespace socsim::functional {

enum class AttentionKind { kF32, kInt8, kFlashLut, kFlashExact, kFlashPoly };

AttentionKind attention_kind(const OpPlacement& p);
const char* attention_kind_name(AttentionKind k);

kernels::Tensor run_attention(AttentionKind kind, const kernels::Tensor& q, const kernels::Tensor& k, const kernels::Tensor& v,
                              std::uint64_t p0, const kernels::LutExpTable& lut);

}  // namespace socsim::functional
