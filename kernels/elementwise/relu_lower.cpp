#include "kernels/elementwise/relu_lower.h"

#include <algorithm>

#include "kernels/elementwise/op_costs.h"
#include "kernels/softmax/softmax_lower.h"

namespace socsim::kernels {

CpuWork lower_relu_cpu(const ElementwiseShape& s, std::uint32_t threads) {
  const std::uint64_t elems = s.rows * s.cols;
  hw::CpuTask t;
  t.name = "relu";
  t.ops = static_cast<double>(elems);
  t.dtype = hw::DType::kFp32;
  t.dram_bytes = elems * 2 * 4;
  return CpuWork{{t}, std::max<std::uint32_t>(1, threads)};
}

GpuWork lower_relu_gpu(const ElementwiseShape& s, hw::DType dtype) {
  const std::uint64_t elems = s.rows * s.cols;
  hw::GpuKernel k;
  k.name = "relu";
  k.flops = static_cast<double>(elems);
  k.dtype = dtype;
  k.dram_bytes = elems * 2 * (dtype == hw::DType::kFp32 ? 4 : 2);
  k.streaming = true;
  return GpuWork{{k}};
}

NpuWork lower_relu_npu(const hw::NpuSpec& npu, const ElementwiseShape& s, std::uint32_t threads) {
  const HvxCost c{npu.hvx};
  const std::uint64_t vectors = c.vectors(s.rows * s.cols, 2);
  NpuWork w;
  w.steps.push_back(NpuStep::hvx("relu", static_cast<double>(vectors) * HvxCost::kIop, hvx_threads(npu, threads, vectors)));
  return w;
}

}  // namespace socsim::kernels
