#pragma once
// HVX packet counts of the vector work around the HMX GEMMs (dequantization, layout shuffles,
// float reductions). Convention: one VLIW packet per HVX ALU instruction; vector loads and stores
// go in the packets' memory slots beside them and cost nothing extra, except in pure data
// movement (the tile shuffles), where the one store slot per packet sets the count.
// A "unit" is 2 * vector_bytes weights: one vector of Q4_0 nibbles (256 weights = 8 groups of 32
// on 128-B HVX, TTS's super-group) or two vectors of Q8_0 bytes; it dequantizes into 4 FP16
// output vectors whatever the vector width.
#include "kernels/gemm/dequant_layout.h"
#include "kernels/quant/block_quant.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels::hvx {

inline double weights_per_unit(const hw::HvxSpec& h) { return 2.0 * h.vector_bytes; }

// Per-group dequantization (layouts kBaseline and kHmxLayout: one 32-weight group per register,
// 18 or 34 bytes of AoS group that start unaligned), per group:
//   valign the group into a register                                   1
//   Q4_0: vand + vlsr into two index vectors, vshuff them into the      3 + vlut16_packets
//         group's order, one vlut16 nibble -> FP16
//   Q8_0: vunpack bytes -> halfwords, vcvt int16 -> FP16                 2
//   vsplat the group's scale (no table: a single scale)                1
//   vmpy by the scale                                                  1
//   qfloat -> IEEE FP16 conversion before V79 (spec.qfloat)            1
// Only 32 of the register's vector_bytes / 2 lanes do useful work: the waste TTS's super-groups
// remove.
inline double group_dequant_packets(const hw::HvxSpec& h, BlockFormat f) {
  const double values = f == BlockFormat::kQ4_0 ? 3 + h.vlut16_packets : 2;
  return 1 + values + 1 + 1 + (h.qfloat ? 1 : 0);
}

// kBaseline: a conventional group (32 consecutive k of one output column) lands in the HMX tile
// layout as 16 row pairs, each in its own 2 x 32 x 2 B = 128-B line of the tile: one vscatter
// whose 16 line writes go through the single store path one per packet (the rule of
// tile_shuffle_packets: one vector-line store per packet).
inline double group_scatter_packets() { return kQuantBlock / 2; }

// Q4_0 per unit, coalesced super-group, TTS 5.2.2 (vlut16 dequantization):
//   vand (low nibbles) + vlsr (high nibbles) -> two index vectors      2
//   vlut16 nibble -> FP16 value in {-8..7}, one per index vector      2 x vlut16_packets
//   vlut16 scale broadcast, 4 group scales as the table, 8 groups     2 x vlut16_packets
//   vmpy by the scales                                                4
//   qfloat -> IEEE FP16 conversions before V79 (spec.qfloat)          4
inline double q4_0_super_group_packets(const hw::HvxSpec& h) { return 2 + 4.0 * h.vlut16_packets + 4 + (h.qfloat ? 4 : 0); }

// Q8_0 per unit (two registers of bytes, 8 groups):
//   vunpack bytes -> halfwords (each writes a vector pair)            2
//   vcvt int16 -> FP16                                                 4
//   vlut16 scale broadcast                                             2 x vlut16_packets
//   vmpy by the scales                                                 4
//   qfloat conversions (spec.qfloat)                                   4
inline double q8_0_super_group_packets(const hw::HvxSpec& h) { return 2 + 4 + 2.0 * h.vlut16_packets + 4 + (h.qfloat ? 4 : 0); }

// kNone: the unit's quantized bytes (8 blocks) stored into the tile buffer, one vector line per
// packet, no arithmetic.
inline double copy_only_packets(const hw::HvxSpec& h, BlockFormat f) {
  return 8.0 * static_cast<double>(block_bytes(f)) / h.vector_bytes;
}

// HVX packets to dequantize one unit (2 x vector_bytes weights; 8 groups on 128-B HVX) into FP16
// tiles in TCM under each layout.
inline double dequant_packets_per_unit(const hw::HvxSpec& h, BlockFormat f, DequantLayout l) {
  const double groups = weights_per_unit(h) / kQuantBlock;
  switch (l) {
    case DequantLayout::kBaseline: return groups * (group_dequant_packets(h, f) + group_scatter_packets());
    case DequantLayout::kHmxLayout: return groups * group_dequant_packets(h, f);
    case DequantLayout::kCoalesced: return f == BlockFormat::kQ4_0 ? q4_0_super_group_packets(h) : q8_0_super_group_packets(h);
    case DequantLayout::kNone: return copy_only_packets(h, f);
  }
  return 0;
}

// Row-major FP16 <-> HMX tile layout for one 32x32 tile: every one of its 2 KiB is loaded and
// stored once (2048 / vector_bytes stores, one per packet); the cross-row vshuff of each row pair
// rides in the same packets.
inline double tile_shuffle_packets(const hw::HvxSpec& h) { return 2048.0 / h.vector_bytes; }

// Per-group reduction, per vector of vector_bytes / 4 INT32 partial results:
//   convert to float 1 + multiply by the group's column scales 1 (+ add to the running sum 1,
//   from the second group on) (+ 1 qfloat -> IEEE conversion when spec.qfloat).
inline double group_reduce_packets(const hw::HvxSpec& h, bool first_group) {
  return (first_group ? 2 : 3) + (h.qfloat ? 1 : 0);
}

}  // namespace socsim::kernels::hvx
