#pragma once
// How the vendor runtime runs a static graph's nodes (Executor::run_graph_nodes): which consumer
// streams behind its producer, block by block.
#include "sim/model/layer_ops.h"
#include "sim/runtime/op_lowering.h"

namespace socsim::runtime {

// An elementwise epilogue of a matmul (its Dequantize, bias, activation, an elementwise op) with
// HVX work only, consuming one GEMM's output: it can run block by block as HMX computes the
// blocks. Attention's parts are one kernel whose lowering already says how they overlap, and a
// producer of several GEMMs (per-group INT8) has no single block order to follow.
bool streams_behind(const model::OpDesc& producer, const NpuOpWork& produced, const model::OpDesc& consumer, const kernels::NpuWork& work);

}  // namespace socsim::runtime
