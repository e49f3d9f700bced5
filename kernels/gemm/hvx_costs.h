#pragma once
// HVX packet counts of the vector work around the HMX GEMMs (dequantization, layout shuffles,
// float reductions). Convention: one VLIW packet per HVX ALU instruction; vector loads and stores
// go in the packets' memory slots beside them and cost nothing extra, except in pure data
// movement (the tile shuffles), where the one store slot per packet sets the count.
// A "unit" is 2 * vector_bytes weights: one vector of Q4_0 nibbles (256 weights = 8 groups of 32
// on 128-B HVX, TTS's super-group) or two vectors of Q8_0 bytes; it dequantizes into 4 FP16
// output vectors whatever the vector width.
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels::hvx {

inline double weights_per_unit(const hw::HvxSpec& h) { return 2.0 * h.vector_bytes; }

// Conventional ggml groups (32 consecutive k of one column) must be transposed into the tile
// layout's row pairs: log2(32) = 5 vshuff stages over the unit's 4 output vectors, 2 pair
// operations per stage. TTS's tile-group layout (weights permuted offline into HMX order) needs none.
inline constexpr double kTileShufflePerUnit = 5 * 2;

// Q4_0 per unit, TTS 5.2.2 (vlut16 dequantization):
//   vand (low nibbles) + vlsr (high nibbles) -> two index vectors      2
//   vlut16 nibble -> FP16 value in {-8..7}, one per index vector      2 x vlut16_packets
//   vlut16 scale broadcast, 4 group scales as the table, 8 groups     2 x vlut16_packets
//   vmpy by the scales                                                4
//   qfloat -> IEEE FP16 conversions before V79 (spec.qfloat)          4
//   shuffle into the tile layout (conventional groups only)           kTileShufflePerUnit
inline double q4_0_dequant_packets(const hw::HvxSpec& h, bool conventional_groups) {
  return 2 + 4.0 * h.vlut16_packets + 4 + (h.qfloat ? 4 : 0) + (conventional_groups ? kTileShufflePerUnit : 0);
}

// Q8_0 per unit:
//   vunpack bytes -> halfwords (each writes a vector pair)            2
//   vcvt int16 -> FP16                                                 4
//   vlut16 scale broadcast                                             2 x vlut16_packets
//   vmpy by the scales                                                 4
//   qfloat conversions (spec.qfloat)                                   4
//   shuffle into the tile layout (conventional groups only)            kTileShufflePerUnit
inline double q8_0_dequant_packets(const hw::HvxSpec& h, bool conventional_groups) {
  return 2 + 4 + 2.0 * h.vlut16_packets + 4 + (h.qfloat ? 4 : 0) + (conventional_groups ? kTileShufflePerUnit : 0);
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
