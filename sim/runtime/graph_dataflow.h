#pragma once
// How the vendor runtime runs a static graph's nodes (Executor::run_graph_nodes): which consumer
// streams behind its producer, block by block.
#include <cstdint>
#include <vector>

#include "sim/core/task.h"
#include "sim/hw/npu/hexagon_npu.h"
#include "sim/model/layer_ops.h"
#include "sim/runtime/op_lowering.h"

namespace socsim::runtime {

// An elementwise epilogue of a matmul (its Dequantize, bias, activation, an elementwise op) with
// HVX work only, consuming one GEMM's output: it can run block by block as HMX computes the
// blocks. Attention's parts are one kernel whose lowering already says how they overlap, and a
// producer of several GEMMs (per-group INT8) has no single block order to follow.
bool streams_behind(const model::OpDesc& producer, const NpuOpWork& produced, const model::OpDesc& consumer, const kernels::NpuWork& work);

// A static graph's nodes as a dataflow. The vendor runtime runs them over two in-order queues,
// matrix nodes (those with HMX work) and vector nodes (HVX only): a node starts when its queue's
// previous node is done and the node it consumes is done, or, for a matmul's elementwise epilogue
// (its Dequantize: streams_behind), block by block as the matmul's output blocks are computed.
// So HVX dequantizes block i while HMX computes block i + 1, and a group's Dequantize runs beside
// the next sibling matmul; threads and engines decide how far they overlap.
struct GraphNode {
  std::int32_t input = -1;   // node it consumes (-1: the graph's input)
  std::int32_t after = -1;   // previous node of its queue (matrix or vector)
  std::uint64_t blocks = 0;  // HMX GEMM blocks it computes (0: a vector node)
  bool streams = false;      // consumes its input's blocks as they are computed
  bool streamed = false;     // a node streams this one's blocks (it reports them as computed)
};
std::vector<GraphNode> graph_nodes(const std::vector<model::OpDesc>& ops, const std::vector<const NpuOpWork*>& lowered);

// Runs the nodes on `npu`; node_time[i] receives node i's time from its start to its done. NPU
// alone, a graph met before is replayed as a whole (npu_alone_replay.h).
Task<> run_graph_dataflow(hw::HexagonNpu& npu, const std::vector<GraphNode>& nodes, const std::vector<const NpuOpWork*>& lowered,
                          std::vector<Tick>& node_time);

}  // namespace socsim::runtime
