#include "sim/runtime/microbench/gpu_cpu_microbench.h"

#include "sim/config/config_error.h"
#include "sim/core/sync.h"
#include "sim/hw/soc.h"
#include "sim/runtime/microbench/microbench_result.h"

namespace socsim::runtime {

namespace {

const config::SourceLocation kCli{"command line", 0, 0};

// The CPU microbenchmarks use llama.cpp/MLLM's default of 4 threads, on the fastest cores.
constexpr std::uint32_t kDefaultCpuThreads = 4;

void run_to_end(Simulator& sim) {
  if (sim.run() != RunResult::kIdle) throw std::logic_error("microbench did not run to completion");
}

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

nlohmann::ordered_json finish(const MicrobenchRequest& r, hw::Soc& soc) {
  auto j = microbench_header(r, soc.sim().now());
  j["units"] = unit_breakdown(soc);
  return j;
}

}  // namespace

nlohmann::ordered_json gpu_matmul(const MicrobenchRequest& r) {
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  // One row is a GEMV kernel (streams the weights), as the runtime lowers it.
  hw::GpuKernel k{"matmul", gemm_flops(r), r.dtype, gemm_bytes(r), r.m > 1 ? r.m : 0};
  k.streaming = r.m <= 1;
  sim.spawn(gpu_kernel_and_sync(soc.gpu(), k), "microbench.gpu_matmul");
  run_to_end(sim);
  auto j = finish(r, soc);
  j["gflops"] = gemm_flops(r) / to_seconds(sim.now()) / 1e9;
  return j;
}

nlohmann::ordered_json gpu_read(const MicrobenchRequest& r) {
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  sim.spawn(gpu_kernel_and_sync(soc.gpu(), {"read", 0, hw::DType::kFp16, r.bytes, 0}), "microbench.gpu_read");
  run_to_end(sim);
  auto j = finish(r, soc);
  j["gbps"] = static_cast<double>(r.bytes) / to_seconds(sim.now()) / 1e9;
  return j;
}

nlohmann::ordered_json gpu_copy(const MicrobenchRequest& r) {
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  sim.spawn(soc.gpu().copy(r.bytes), "microbench.gpu_copy");
  run_to_end(sim);
  auto j = finish(r, soc);
  j["gbps"] = static_cast<double>(r.bytes) / to_seconds(sim.now()) / 1e9;
  return j;
}

nlohmann::ordered_json cpu_matmul(const MicrobenchRequest& r) {
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  hw::CpuTask t{"matmul", gemm_flops(r), r.dtype, gemm_bytes(r), r.m > 1 ? r.m : 0};  // M=1: GEMV path
  sim.spawn(soc.cpu().run_on_fastest(t, r.threads ? r.threads : kDefaultCpuThreads), "microbench.cpu_matmul");
  run_to_end(sim);
  auto j = finish(r, soc);
  j["gflops"] = gemm_flops(r) / to_seconds(sim.now()) / 1e9;
  return j;
}

nlohmann::ordered_json cpu_read(const MicrobenchRequest& r) {
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  hw::CpuTask t{"read", 0, hw::DType::kFp32, r.bytes, 0};
  sim.spawn(soc.cpu().run_on_fastest(t, r.threads ? r.threads : kDefaultCpuThreads), "microbench.cpu_read");
  run_to_end(sim);
  auto j = finish(r, soc);
  j["gbps"] = static_cast<double>(r.bytes) / to_seconds(sim.now()) / 1e9;
  return j;
}

nlohmann::ordered_json gpu_npu_read(const MicrobenchRequest& r) {
  // Both processors stream `bytes` each at once, the NPU on its runtime path (all HVX threads):
  // the decode situation of HeteroLLM 3.3. gbps = all bytes moved / time until both finish.
  if (!r.engine.empty()) throw config::ConfigError(kCli, "--engine", "gpu+npu read uses each unit's default path");
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  sim.spawn(gpu_kernel_and_sync(soc.gpu(), {"read", 0, hw::DType::kFp16, r.bytes, 0}), "microbench.gpu_read");
  sim.spawn(soc.npu().hvx_stream(r.bytes, r.soc.npu.hvx.contexts, "read"), "microbench.npu_read");
  run_to_end(sim);
  auto j = finish(r, soc);
  j["gbps"] = 2.0 * static_cast<double>(r.bytes) / to_seconds(sim.now()) / 1e9;
  return j;
}

}  // namespace socsim::runtime
