#include "kernels/gemm/gemv_lower_npu.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_lower.h"

namespace socsim::kernels {

NpuWork lower_gemv_npu(const GemmDims& d, const GemmFormat& f, const hw::NpuSpec& spec, GemvArithmetic arithmetic) {
  if (d.m <= 0 || d.k <= 0 || d.n <= 0) throw std::invalid_argument("NPU GEMV with an empty dimension");
  const auto k = static_cast<std::uint64_t>(d.k), n = static_cast<std::uint64_t>(d.n);
  const double lanes = spec.hvx.vector_bytes / 2.0;
  const double q = spec.hvx.qfloat ? 1 : 0;
  std::uint64_t bytes = 0;
  double per_vector = spec.hvx.fp16_mac_packets, dequant = 0;
  switch (f.weights) {
    case GemmWeights::kF16: bytes = 2 * k * n; break;
    case GemmWeights::kI8:
      bytes = k * n;
      per_vector /= 2;
      break;
    case GemmWeights::kI8PerGroup: {
      if (f.group < 1) throw std::invalid_argument("quantization group must have at least one row");
      const auto g = static_cast<std::uint64_t>(f.group);
      bytes = k * n + 2 * n * ((k + g - 1) / g);
      per_vector /= 2;
      dequant = 1 + q;
      break;
    }
    case GemmWeights::kBlock:
      if (f.block != BlockFormat::kQ4_0) throw std::invalid_argument("NPU GEMV: no rule for Q8_0 weights");
      bytes = block_weight_bytes(d.k, d.n, f.block);
      if (arithmetic == GemvArithmetic::kInteger) {
        per_vector /= 2;
        dequant = 1;
      } else {
        dequant = 4 + q;
      }
      break;
    case GemmWeights::kF32: throw std::invalid_argument("NPU GEMV: the NPU has no FP32 GEMV");
  }
  const double macs = static_cast<double>(d.m) * static_cast<double>(k) * static_cast<double>(n);
  const double packets = std::ceil(macs / lanes) * per_vector + std::ceil(static_cast<double>(k * n) / lanes) * dequant;
  NpuWork w;
  w.steps.push_back(NpuStep::hvx_stream("gemv", bytes, packets, spec.hvx.contexts));
  return w;
}

}  // namespace socsim::kernels
