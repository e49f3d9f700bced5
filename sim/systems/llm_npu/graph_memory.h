#pragma once
// Memory of llm.npu's static NPU graphs, with and without chunk sharing (llm.npu 3.2).
// A static graph holds its weights and its activation buffers for c rows: per matmul, the INT8
// input [c x k] and the dequantized FP32 output [c x n]; its weights at the job's precision
// (INT8 per-tensor, or INT8 + one FP16 scale per 128-row group and column for per-group).
// Shared: one graph per layer position serves every chunk. Unshared: every chunk needs graphs of
// its own (a graph per chunk position, as without sharing each chunk's shape would be built for),
// so weights and buffers are held once per chunk. Buffers hold the rows of the graph's
// activation layout (job.npu_kernels.graph_layout: crouton padding, hw::stored_rows).
#include <cstdint>

#include "sim/hw/npu/npu_spec.h"
#include "sim/runtime/job.h"

namespace socsim::systems::llm_npu {

struct GraphMemory {
  std::uint64_t weight_bytes = 0;  // all distinct static graphs
  std::uint64_t buffer_bytes = 0;
  std::uint64_t shared_bytes() const { return weight_bytes + buffer_bytes; }
  std::uint64_t unshared_bytes(std::uint64_t chunks) const { return chunks * shared_bytes(); }
};

// Over the plan's NPU jobs, each distinct npu_graph counted once.
GraphMemory graph_memory(const runtime::Plan& plan, const hw::NpuSpec& npu);

}  // namespace socsim::systems::llm_npu
