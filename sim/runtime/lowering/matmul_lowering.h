#pragma once
// A model matmul (activations [m x k] times weights [k x n]) through the GEMM faces, with the
// weight format of its precision (precision_formats.h):
//   CPU / GPU  m >= 2: the GEMM face (kernels/gemm/gemm_lower.h); m = 1: the GEMV face
//              (kernels/gemm/gemv_lower.h: same counts on the vector path). CPU faces get the
//              job's threads. GPU: fewer than kGpuGemmMinRows rows (decode batches) take the
//              mat-vec kernels (lower_matvec_gpu: a pass over the weights per 8 rows); CPU:
//              fewer than kCpuGemmMinRows rows the dot-product path (lower_matvec_cpu: no
//              row-block padding).
//   NPU        m = 1: lower_gemv_npu (weights streamed on all HVX threads, HeteroLLM 3.3); W4A16
//              on the integer path for the vendor runtime (choice.w4a16 = kVendorGraph), widened
//              to FP16 for a custom kernel;
//              m >= 2 by precision (kernels/gemm/gemm_lower_npu.h):
//                kW8A8         lower_gemm_i8_npu (HMX INT8; its one-node graph call is the job's)
//                kW8A8Group    lower_gemm_i8_per_group_npu, G = 128 (4 G' - 1 graph nodes)
//                kW4A16        lower_gemm_w4a16_graph_npu (the vendor runtime's graph), or
//                              lower_gemm_w4a16_npu for a custom kernel: Q4_0 (Q8_0 for
//                              down_proj with choice.q8_0_down), choice.dequant's layout
//                kFp16, kFp32  lower_gemm_f16_hmx_npu (row-major operands: tile/untile on HVX)
//              2 <= m < hmx.tile_rows (a decode batch): the GEMV face instead when the engines'
//              bound (npu_work_bound.h) finds it faster than the tiles, as a compiler's cost
//              model would (streaming wins for a few rows, HMX near a full tile of rows)
//              choice.hmx_gemv: every m takes the m >= 2 faces (a whole HMX tile for one row)
#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"
#include "sim/model/layer_ops.h"
#include "sim/runtime/job.h"
#include "sim/runtime/npu_kernel_choice.h"

namespace socsim::runtime::lowering {

kernels::CpuWork lower_matmul_cpu(const model::OpDesc& op, Precision p, std::uint32_t threads);
kernels::GpuWork lower_matmul_gpu(const model::OpDesc& op, Precision p);
// The kernel's work as its face gives it, graph_call steps included.
kernels::NpuWork lower_matmul_npu(const model::OpDesc& op, Precision p, const hw::NpuSpec& npu, const NpuKernelChoice& choice = {});

}  // namespace socsim::runtime::lowering
