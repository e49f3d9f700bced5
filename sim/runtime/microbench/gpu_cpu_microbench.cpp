#include "sim/runtime/microbench/gpu_cpu_microbench.h"

#include <utility>

#include "sim/config/config_error.h"
#include "sim/core/sync.h"
#include "sim/hw/soc.h"
#include "sim/runtime/microbench/microbench_result.h"
#include "sim/runtime/work_runner.h"
#include "kernels/gemm/gemm_lower.h"

namespace socsim::runtime {

namespace {

const config::SourceLocation kCli{"command line", 0, 0};

// The CPU microbenchmarks run on the fastest cores, as many as cpu_threads() gives (microbench.h).

// Bytes a GEMM moves through DRAM once: weights, activations in, outputs out.
std::uint64_t gemm_bytes(const MicrobenchRequest& r) {
  const double w = static_cast<double>(r.k * r.n) * hw::weight_bits(r.dtype) / 8.0;
  const double act = hw::activation_bytes(r.dtype);
  return static_cast<std::uint64_t>(w + static_cast<double>(r.m * r.k + r.m * r.n) * act);
}

double gemm_flops(const MicrobenchRequest& r) {
  return 2.0 * static_cast<double>(r.m) * static_cast<double>(r.k) * static_cast<double>(r.n);
}

Task<> gpu_kernel_and_sync(hw::AdrenoGpu& gpu, hw::GpuKernel k) {
  co_await gpu.enqueue(std::move(k));
  co_await gpu.finish();
}

}  // namespace

namespace {
kernels::GemmDims dims(const MicrobenchRequest& r) {
  return {static_cast<std::int64_t>(r.m), static_cast<std::int64_t>(r.k), static_cast<std::int64_t>(r.n)};
}
}  // namespace

nlohmann::ordered_json gpu_matmul(const MicrobenchRequest& r) {
  if (r.dtype == hw::DType::kW4A16) {
    // Block-quantized weights dequantized to FP16 in the kernel (gemm_lower.h).
    auto work = kernels::lower_gemm_w4a16_gpu(dims(r), r.switches.w4a16_format);
    return time_on_soc(r, [work = std::move(work)](hw::Soc& soc) mutable { return run_work(soc, std::move(work)); }, "gflops", gemm_flops(r));
  }
  // One row is a GEMV kernel (streams the weights), as the runtime lowers it.
  hw::GpuKernel k{"matmul", gemm_flops(r), r.dtype, gemm_bytes(r), r.m > 1 ? r.m : 0};
  k.streaming = r.m <= 1;
  return time_on_soc(r, [k](hw::Soc& soc) { return gpu_kernel_and_sync(soc.gpu(), k); }, "gflops", gemm_flops(r));
}

nlohmann::ordered_json gpu_read(const MicrobenchRequest& r) {
  const hw::GpuKernel k{"read", 0, hw::DType::kFp16, r.bytes, 0};
  return time_on_soc(r, [k](hw::Soc& soc) { return gpu_kernel_and_sync(soc.gpu(), k); }, "gbps", static_cast<double>(r.bytes));
}

nlohmann::ordered_json gpu_copy(const MicrobenchRequest& r) {
  const std::uint64_t bytes = r.bytes;
  return time_on_soc(r, [bytes](hw::Soc& soc) { return soc.gpu().copy(bytes); }, "gbps", static_cast<double>(bytes));
}

nlohmann::ordered_json cpu_matmul(const MicrobenchRequest& r) {
  if (r.dtype == hw::DType::kW4A16) {
    // llama.cpp's q4_0 x q8_0 (q8_0 x q8_0) dot products (gemm_lower.h).
    auto work = kernels::lower_gemm_w4a16_cpu(dims(r), r.switches.w4a16_format, cpu_threads(r));
    return time_on_soc(r, [work = std::move(work)](hw::Soc& soc) mutable { return run_work(soc, std::move(work)); }, "gflops", gemm_flops(r));
  }
  const hw::CpuTask t{"matmul", gemm_flops(r), r.dtype, gemm_bytes(r), r.m > 1 ? r.m : 0};  // M=1: GEMV path
  const std::uint32_t threads = cpu_threads(r);
  return time_on_soc(r, [t, threads](hw::Soc& soc) { return soc.cpu().run_on_fastest(t, threads); }, "gflops", gemm_flops(r));
}

nlohmann::ordered_json cpu_read(const MicrobenchRequest& r) {
  const hw::CpuTask t{"read", 0, hw::DType::kFp32, r.bytes, 0};
  const std::uint32_t threads = cpu_threads(r);
  return time_on_soc(r, [t, threads](hw::Soc& soc) { return soc.cpu().run_on_fastest(t, threads); }, "gbps",
                     static_cast<double>(r.bytes));
}

nlohmann::ordered_json gpu_npu_read(const MicrobenchRequest& r) {
  // Both processors stream `bytes` each at once, the NPU on its runtime path (all HVX threads):
  // the decode situation of HeteroLLM 3.3. gbps = all bytes moved / time until both finish.
  if (!r.engine.empty()) throw config::ConfigError(kCli, "--engine", "gpu+npu read uses each unit's default path");
  const hw::GpuKernel k{"read", 0, hw::DType::kFp16, r.bytes, 0};
  const std::uint64_t bytes = r.bytes;
  const std::uint32_t threads = r.soc.npu.hvx.contexts;
  return time_on_soc(
      r,
      [k, bytes, threads](hw::Soc& soc) {
        TaskList both;
        both.push_back(gpu_kernel_and_sync(soc.gpu(), k));
        both.push_back(soc.npu().hvx_stream(bytes, threads, "read"));
        return when_all(soc.sim(), std::move(both));
      },
      "gbps", 2.0 * static_cast<double>(bytes));
}

}  // namespace socsim::runtime
