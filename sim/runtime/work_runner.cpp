#include "sim/runtime/work_runner.h"

#include <vector>

#include "sim/core/sync.h"
#include "sim/hw/npu/hmx_gemm.h"

namespace socsim::runtime {

Task<> run_npu_step(hw::HexagonNpu& npu, const kernels::NpuStep& step) {
  switch (step.kind) {
    case kernels::NpuStep::Kind::kGraphCall: co_await npu.graph_call(step.graph_ops, step.name); break;
    case kernels::NpuStep::Kind::kHmxGemm: co_await hw::run_hmx_gemm(npu, hw::plan_hmx_gemm(npu.spec(), step.gemm, step.home), step.name); break;
    case kernels::NpuStep::Kind::kHvx: co_await npu.hvx(step.packets, step.threads, step.name); break;
    case kernels::NpuStep::Kind::kDma: co_await npu.dma(step.bytes, step.transfers, step.name); break;
    case kernels::NpuStep::Kind::kHvxStream: co_await npu.hvx_stream(step.bytes, step.threads, step.name, step.packets); break;
    case kernels::NpuStep::Kind::kDmaDuringHvx: {
      std::vector<Task<>> both;
      both.push_back(npu.dma(step.bytes, step.transfers, step.name + " (prefetch)"));
      both.push_back(npu.hvx(step.packets, step.threads, step.name));
      co_await when_all(npu.sim(), std::move(both), step.name);
      break;
    }
  }
}

// Work is taken by value: these run as spawned processes that outlive the caller's locals.
Task<> run_work(hw::Soc& soc, kernels::NpuWork work) {
  for (const auto& step : work.steps) co_await run_npu_step(soc.npu(), step);
}

Task<> run_work(hw::Soc& soc, kernels::GpuWork work) {
  for (auto& k : work.kernels) co_await soc.gpu().enqueue(k);
  co_await soc.gpu().finish();
}

Task<> run_work(hw::Soc& soc, kernels::CpuWork work) {
  for (const auto& t : work.tasks) co_await soc.cpu().run_on_fastest(t, work.threads);
}

}  // namespace socsim::runtime
