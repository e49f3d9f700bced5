#pragma once
// Static-graph preparation costs of the vendor runtime (QNN-style build -> optimize/finalize):
// linear in the number of op nodes and in the tensor bytes the graph holds (HeteroLLM Fig. 9:
// preparation grows with tensor size; llm.npu 2.3: Gemma-2B build 360 ms, optimize 11.54 s).
#include <cstdint>
#include <vector>

#include "sim/core/time.h"
#include "sim/hw/npu/npu_spec.h"
#include "sim/model/layer_ops.h"

namespace socsim::hw {

struct GraphSize {
  std::uint64_t ops = 0;
  std::uint64_t tensor_bytes = 0;  // static weights + activation buffers
};

// Size of an NPU graph made of these ops: weights at `weight_bits` each (8 for W8A8), matmul and
// quantize outputs at `matmul_output_bytes` (1 for INT8), other activations FP16.
GraphSize graph_size(const std::vector<model::OpDesc>& ops, double weight_bits = 8, double matmul_output_bytes = 1);

Tick graph_build_time(const NpuGraphSpec& g, const GraphSize& size);
Tick graph_optimize_time(const NpuGraphSpec& g, const GraphSize& size);
// One execute of a graph of `ops` nodes: the call, each node's dispatch and, for a graph whose
// tensors are client buffers of `client_io_bytes` (0: registered shared memory), their
// synchronization (npu_spec.h, NpuGraphSpec::client_io_*).
Tick graph_execute_time(const NpuGraphSpec& g, std::uint32_t ops, std::uint64_t client_io_bytes);

}  // namespace socsim::hw
