#pragma once
// FP16 attention on HVX alone (no HMX): the `lower` face of "what if attention ran on the vector
// units" (e.g. an NPU without HMX, or HMX busy with the FFN). Numerically it is the FP16 flash
// attention of flash_attention.h with the chosen exp; only the cost differs.
//
// A custom kernel (no static graph), operands in TCM; rows spread over `threads` HVX contexts.
// Per head and query row i seeing v_i = p0 + i + 1 keys (causal positions skipped), with L = 64
// FP16 lanes per vector and P = fp16_mac_packets (packets per vector multiply-accumulate, loads
// and qfloat conversions included, as the HVX matmul microbenchmark uses):
//   scores   ceil(v_i / L) score vectors, each d multiply-accumulates      ceil(v_i / L) d P
//   softmax  hvx_softmax_row_packets(v_i, exp)                            (softmax_lower.h)
//   context  ceil(d / L) output vectors, each v_i multiply-accumulates     ceil(d / L) v_i P
// One HVX step per head (all rows), so heads run one after another on all threads.
#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/lowering/work.h"
#include "kernels/softmax/exp_variant.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

// Packets of one query row seeing `keys` keys with head dimension `head_dim`.
double hvx_attention_row_packets(const hw::HvxSpec& hvx, std::uint64_t keys, std::uint64_t head_dim, ExpVariant v);

NpuWork lower_attention_hvx_npu(const hw::NpuSpec& npu, const AttentionShape& s, ExpVariant v, std::uint32_t threads);

}  // namespace socsim::kernels
