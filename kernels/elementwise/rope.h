#pragma once
// Rotary position embedding, rotate-half (Llama / Hugging Face) convention, with partial rotary
// dimensions (phi-2 rotates 0.4 of its 80 head dims).
//
// For a head vector x of head_dim values, the first r = rotary_dims(head_dim, fraction) values
// rotate and the rest pass through. With h = r/2, pair i (i < h) is (x[i], x[i+h]) and
//   inv_freq[i] = theta^(-2i/r) (scaled by the model's rope_scaling),  a = position * inv_freq[i]
//   x'[i]   = x[i]   cos a - x[i+h] sin a
//   x'[i+h] = x[i+h] cos a + x[i]   sin a
// Angles and cos/sin are computed in double and rounded once to FP32, so long positions do not
// lose the angle's low bits (Hugging Face forms inv_freq and the angle in FP32, which at position
// 4096 can be off by ~4e-4 rad; we keep the exact rotation).
//
// `lower`: cos/sin come from a per-position cache (built once per model), read per token.
//   CPU/GPU: 3 ops per rotated value (two multiplies and an add/sub); bytes: the rotated values
//     read and written, plus r cache values (h cos + h sin) per token.
//   NPU HVX (FP16): per (token, head), the h pairs take ceil(h / 64) vector pairs, each 4
//     multiplies + 1 subtract + 1 add = 6 fop. One (token, head) per vector set: with h < 64
//     (e.g. phi-2, h = 16) the vectors are partly empty, as in a per-head loop.
#include <cstdint>

#include "kernels/lowering/work.h"
#include "kernels/tensor/tensor.h"
#include "sim/hw/npu/npu_spec.h"
#include "sim/model/rope_scaling.h"

namespace socsim::kernels {

struct RopeParams {
  double theta = 10000.0;
  double rotary_fraction = 1.0;  // of head_dim; rounded down to an even count
  model::RopeScaling scaling;    // the model's rope_scaling: inv_freq as model/rope_scaling.h forms it
};

struct RopeShape {
  std::uint64_t tokens = 0, heads = 0, head_dim = 0;
};

std::uint64_t rotary_dims(std::uint64_t head_dim, double fraction);

// x: [tokens, heads, head_dim] F32; token t is at position p0 + t. Rotated in place.
void apply_rope(Tensor& x, const RopeParams& p, std::uint64_t p0);

CpuWork lower_rope_cpu(const RopeShape& s, const RopeParams& p, std::uint32_t threads);
GpuWork lower_rope_gpu(const RopeShape& s, const RopeParams& p, hw::DType dtype);
NpuWork lower_rope_npu(const hw::NpuSpec& npu, const RopeShape& s, const RopeParams& p, std::uint32_t threads);

}  // namespace socsim::kernels
