#pragma once
// Cost rules shared by the `lower` faces of the non-GEMM kernels (softmax, attention, elementwise),
// so a reader checks one rule set instead of one per kernel.
//
// CPU and GPU: a CpuTask or GpuKernel carries plain op counts that the unit models divide by a
// SIMD throughput, so a transcendental is charged as the arithmetic a vectorized implementation
// spends on it (the k...Ops constants below).
//
// HVX: every packet count is built from the HvxCost primitives:
//   - a float add/sub/mul on one vector is 1 packet, plus 1 conversion packet back to IEEE when
//     the core computes in qfloat (hvx.qfloat, pre-V79). We charge the conversion on every float
//     result: hand kernels convert before compares, gathers and stores, and chains that could
//     stay in qfloat are short, so this is the simple conservative reading;
//   - integer, logic, shift, compare, max/min, select, permute and int<->float convert: 1 packet
//     (vmax/vmin on hf/sf return IEEE, so no conversion);
//   - loads and stores co-issue in the VLIW slots next to the arithmetic and are not counted;
//     the softmax and FlashAttention exps (and their LUT's vgathers) are costed by instruction
//     mix and VLIW resources instead (hvx_mix.h, softmax_lower.cpp);
//   - a horizontal reduction of one vector is log2(lanes) rotate+combine steps.
#include <bit>
#include <cstdint>

#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

// Vectorized expf (ARM optimized-routines style): range reduction r = x - n ln2 as two FMAs (4),
// rounding n (1), degree-5 Horner as 5 FMAs (10), scaling by 2^n through the exponent (1).
inline constexpr double kCpuExpOps = 16;
// FP16 polynomial exp2 (kernels/softmax/poly_exp2.h): x*log2e (1), floor (1), t - n (1), degree-3
// Horner (6), exponent add (1).
inline constexpr double kPolyExpOps = 10;
// LUT exp: clear the sign bit (1), form the index (1), table load (1).
inline constexpr double kLutExpOps = 3;
// GPU exp on the special-function unit, which issues at a quarter of the ALU rate.
inline constexpr double kGpuExpOps = 4;
// erf (Abramowitz-Stegun 7.1.26): t = 1/(1 + p|x|) (3), degree-5 Horner (10), exp(-x^2) (1 + exp),
// product, 1 - y and the sign (3).
inline constexpr double kErfOpsWithoutExp = 17;
// tanh(u) = 1 - 2/(1 + e^{2u}): 2u, +1, divide, 1 - (4) plus the exp.
inline constexpr double kTanhOpsWithoutExp = 4;

// HVX packet primitives (rules above).
struct HvxCost {
  const hw::HvxSpec& hvx;

  std::uint64_t lanes(std::uint32_t elem_bytes) const { return hvx.vector_bytes / elem_bytes; }
  std::uint64_t vectors(std::uint64_t elements, std::uint32_t elem_bytes) const {
    const std::uint64_t l = lanes(elem_bytes);
    return (elements + l - 1) / l;
  }
  // Packets of one float arithmetic instruction.
  double fop() const { return hvx.qfloat ? 2.0 : 1.0; }
  static constexpr double kIop = 1.0;
  // Reduce one vector of `elem_bytes` lanes to lane 0: log2(lanes) x (rotate + combine).
  double reduce(std::uint32_t elem_bytes, double combine_packets) const {
    return static_cast<double>(std::bit_width(lanes(elem_bytes)) - 1) * (kIop + combine_packets);
  }
  // HVX has no divide: an integer-trick seed then two Newton steps y = y(2 - xy) (3 fops each).
  double reciprocal() const { return kIop + 6 * fop(); }
  // 1/sqrt: integer-trick seed then two Newton steps y = y(1.5 - (x/2) y^2) (4 fops each).
  double rsqrt() const { return kIop + 8 * fop(); }
  // FP16 vector -> two FP32 vectors (one convert per output vector).
  static constexpr double kWiden = 2.0;
};

}  // namespace socsim::kernels
