#pragma once
// A lower bound of the time an NPU work takes on an otherwise idle NPU, from its engines alone:
// HVX context-cycles over the contexts, HMX cycles over the units, the DMA engine's set-up rounds
// and bytes at the DMA path's cap, and the bytes HVX streams from DRAM at the core path's cap.
// No engine finishes its share sooner, whatever the overlap. What a compiler's cost model
// compares kernels with (lower_matmul_npu: the HVX streaming kernel or the HMX tiles for a few
// rows), and HeteroLLM's coarse profiler bounds its candidates with. Graph calls are left out
// (the caller adds its own: a kernel inside a graph pays none).
#include "kernels/lowering/work.h"
#include "sim/core/time.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::runtime::lowering {

// Seconds, unrounded.
double npu_engines_seconds(const hw::NpuSpec& npu, const kernels::NpuWork& work);

// The same in ticks, rounded down and one tick less: the engines' own rounding of each step is
// upward, so the bound never exceeds a simulated run.
Tick npu_engines_bound(const hw::NpuSpec& npu, const kernels::NpuWork& work);

// A work's DRAM traffic: the bytes it moves between DRAM and the NPU (DMA transfers, HMX GEMMs'
// staged operands and write-backs, what HVX streams) and the seconds they take alone at their
// paths' caps (the DMA path's, and the core path's for what HVX streams; the two run side by
// side), within the NPU port's cap: how fast its traffic moves while it computes, as the NPU
// model streams it beside the packets.
struct NpuDramTraffic {
  double bytes = 0, seconds = 0;
};
NpuDramTraffic npu_dram_traffic(const hw::NpuSpec& npu, const kernels::NpuWork& work);

// The graph-node dispatches the executor charges for a work (Executor: one graph call per job for
// the sum of its ops' nodes): the nodes of the work's own graph calls (4 G - 1 for a per-group
// INT8 GEMM), or 1 for a kernel outside a graph (a node of its own).
std::uint32_t graph_node_dispatches(const kernels::NpuWork& work);

}  // namespace socsim::runtime::lowering
