#pragma once
// Lowers one model op to the work it is for a unit at a precision: FLOPs, bytes through DRAM,
// HMX GEMM shapes, HVX packets (kernels/lowering/work.h). Dynamic kernels (CPU, GPU) skip the
// causally masked half of attention; static NPU graphs compute the whole rectangle.
#include "kernels/lowering/work.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/layer_ops.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"

namespace socsim::runtime {

struct OpTraffic {
  double weight_bytes = 0;      // static weights read
  double activation_bytes = 0;  // activations read and written
  double kv_bytes = 0;          // KV cache read (attention)
};

OpTraffic op_traffic(const model::OpDesc& op, const model::ModelConfig& m, Precision p);

hw::CpuTask lower_cpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p);
hw::GpuKernel lower_gpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p);
// NPU steps of one op inside a graph (the graph call itself is the executor's).
std::vector<kernels::NpuStep> lower_npu(const model::OpDesc& op, const model::ModelConfig& m, Precision p,
                                        const hw::NpuSpec& npu);

// Nodes an op is in a static NPU graph: one, except a per-group INT8 matmul, which a graph can
// only express as per group a slice, a sub-GEMM, a dequantize and (after the first) an add:
// 4 G - 1 nodes (llm.npu 2.3).
std::uint32_t npu_graph_nodes(const model::OpDesc& op, Precision p);
double precision_weight_bits(Precision p);
double precision_activation_bytes(Precision p);

}  // namespace socsim::runtime
