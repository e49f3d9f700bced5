#pragma once
// An HVX loop body as its instruction mix, and the VLIW packets a software-pipelined loop over it
// takes on one hardware thread: the most used resource sets the count. V73/V75 resources per
// packet (HVX PRM, "VLIW packing rules"): load, store, shift, permute and two multiply, at most four
// instructions. Instruction classes (LLVM HexagonDepIICHVX.td, DepHVXItinV75; types per intrinsic
// in Rust's core::arch::hexagon docs):
//   va     CVI_VA: integer ALU (vmax, vcmp, vmux, vand, vadd.w): any of the 4 compute resources
//   vs     CVI_VS: the shift resource: every qfloat add/sub, every format conversion, vasl/vlsr
//   vx     CVI_VX: one multiply resource
//   vx_dv  CVI_VX_DV: both multiply resources (qfloat multiplies)
//   vp     CVI_VP: the permute resource (vror, valign)
//   vp_vs  CVI_VP_VS: permute and shift together (vdeal, vshuff, vlut16)
//   loads, stores: the load and store resources; gathers: vgather, which holds the thread's
//   gather path for hvx.vgather_latency_packets (data-dependent indices conflict in the TCM banks).
// From V79 the permute resource also takes shift-class instructions (hvx.shift_resources = 2).
#include <algorithm>

#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

struct HvxMix {
  double va = 0, vs = 0, vx = 0, vx_dv = 0, vp = 0, vp_vs = 0, loads = 0, stores = 0, gathers = 0;

  HvxMix operator+(const HvxMix& o) const {
    return {va + o.va, vs + o.vs, vx + o.vx, vx_dv + o.vx_dv, vp + o.vp, vp_vs + o.vp_vs,
            loads + o.loads, stores + o.stores, gathers + o.gathers};
  }
  HvxMix operator*(double k) const { return {va * k, vs * k, vx * k, vx_dv * k, vp * k, vp_vs * k, loads * k, stores * k, gathers * k}; }
  double instructions() const { return va + vs + vx + vx_dv + vp + vp_vs + loads + stores + gathers; }
};

// Packets per iteration of a loop over `m` on one hardware thread (resource-bound: the loop is
// unrolled and software-pipelined enough that dependences do not stall it).
inline double vliw_packets(const HvxMix& m, const hw::HvxSpec& h) {
  const double shift_slots = std::max<std::uint32_t>(1, h.shift_resources);
  // Shift-class work: VS on any shift-capable resource; VP_VS holds shift and permute together.
  const double shift = shift_slots > 1 ? (m.vs + 2 * m.vp_vs + m.vp) / shift_slots : m.vs + m.vp_vs;
  const double permute = m.vp + m.vp_vs;
  const double multiply = (m.vx + 2 * m.vx_dv) / 2;
  const double compute = (m.va + m.vs + m.vx + 2 * m.vx_dv + m.vp + 2 * m.vp_vs) / 4;  // 4 compute resources
  const double issue = m.instructions() / 4;                                             // 4 slots per packet
  const double gather = m.gathers * h.vgather_latency_packets;
  return std::max({shift, permute, multiply, compute, issue, m.loads, m.stores, gather});
}

}  // namespace socsim::kernels
