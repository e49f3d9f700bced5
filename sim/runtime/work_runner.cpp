#include "sim/runtime/work_runner.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/sync.h"
#include "sim/hw/npu/hmx_gemm.h"
#include "sim/runtime/npu_alone_replay.h"

namespace socsim::runtime {

Task<> run_npu_step(hw::HexagonNpu& npu, const kernels::NpuStep& step, Progress* outputs) {
  // The step's name is copied only for a trace (a copy per step was a share of untraced runs).
  std::string name;
  if (npu.tracing()) name = step.name;
  switch (step.kind) {
    // A kernel's own graph call synchronizes the client buffers its bytes count (a caller running
    // the graph on registered memory zeroes them; runtime jobs make their calls in the executor).
    case kernels::NpuStep::Kind::kGraphCall: co_await npu.graph_call(step.graph_ops, std::move(name), step.bytes); break;
    case kernels::NpuStep::Kind::kHmxGemm: {
      const auto plan = npu.gemm_plan(step.gemm, step.home);  // held while the GEMM runs
      co_await hw::run_hmx_gemm(npu, *plan, std::move(name), outputs);
      break;
    }
    case kernels::NpuStep::Kind::kHvx: co_await npu.hvx(step.packets, step.threads, std::move(name)); break;
    case kernels::NpuStep::Kind::kDma: co_await npu.dma(step.bytes, step.transfers, std::move(name)); break;
    case kernels::NpuStep::Kind::kHvxStream: co_await npu.hvx_stream(step.bytes, step.threads, std::move(name), step.packets); break;
    case kernels::NpuStep::Kind::kHmxCycles:
      co_await npu.hmx(step.hmx_cycles, std::move(name));
      if (outputs) outputs->advance();  // one block of output, as gemm_blocks counts it
      break;
  }
}

namespace {

// Where each stage of a pipelined NpuWork has got, and which steps each (stage, iteration) runs.
struct Pipeline {
  Pipeline(Simulator& sim, const kernels::NpuWork& work, Progress* outputs) : work(work), outputs(outputs) {
    const std::size_t stages = work.stages.size();
    for (std::size_t s = 0; s < stages; ++s) done.push_back(std::make_unique<Progress>(sim));
    for (const auto& step : work.steps) iterations = std::max(iterations, step.iteration + 1);
    // The steps of each (stage, iteration) cell, in step order, as one array with offsets: two
    // allocations instead of one per cell.
    const std::size_t n_cells = stages * iterations;
    first.assign(n_cells + 1, 0);
    for (const auto& step : work.steps) {
      if (step.stage >= stages) {
        throw std::logic_error("NPU step '" + step.name + "' is in stage " + std::to_string(step.stage) + " of a " +
                               std::to_string(stages) + "-stage pipeline");
      }
      ++first[cell(step.stage, step.iteration) + 1];
    }
    for (std::size_t c = 0; c < n_cells; ++c) first[c + 1] += first[c];
    steps.resize(work.steps.size());
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (std::uint32_t k = 0; k < work.steps.size(); ++k) {
      steps[fill[cell(work.steps[k].stage, work.steps[k].iteration)]++] = k;
    }
  }
  std::size_t cell(std::uint32_t stage, std::uint32_t iteration) const {
    return static_cast<std::size_t>(stage) * iterations + iteration;
  }
  const kernels::NpuWork& work;
  Progress* outputs;
  std::uint32_t iterations = 0;
  std::vector<std::unique_ptr<Progress>> done;  // iterations finished, per stage
  std::vector<std::uint32_t> first;             // per cell [stage][iteration]: its first entry in steps
  std::vector<std::uint32_t> steps;             // step indices, cell after cell
};

// One stage: an in-order stream over the iterations. It waits for the previous stage to have
// produced iteration i, and for a free output buffer (the next stage done with i - buffers).
Task<> run_stage(hw::HexagonNpu& npu, Pipeline& p, std::uint32_t s) {
  const std::uint32_t last = static_cast<std::uint32_t>(p.work.stages.size()) - 1;
  const std::uint32_t buffers = p.work.stages[s].buffers;
  for (std::uint32_t i = 0; i < p.iterations; ++i) {
    if (s > 0) co_await p.done[s - 1]->reach(i + 1);
    if (s < last && buffers > 0 && i >= buffers) co_await p.done[s + 1]->reach(i - buffers + 1);
    const std::size_t c = p.cell(s, i);
    for (std::uint32_t e = p.first[c]; e < p.first[c + 1]; ++e) co_await run_npu_step(npu, p.work.steps[p.steps[e]], p.outputs);
    p.done[s]->advance();
  }
}

// How many steps from `i` on are the same HMX GEMM (shape and operand home, wherever that is); 0
// unless step i is one.
std::size_t identical_gemms_from(const std::vector<kernels::NpuStep>& steps, std::size_t i) {
  const auto& a = steps[i];
  if (a.kind != kernels::NpuStep::Kind::kHmxGemm) return 0;
  std::size_t n = 1;
  while (i + n < steps.size() && steps[i + n].kind == a.kind && steps[i + n].home == a.home && steps[i + n].gemm == a.gemm) ++n;
  return n;
}

}  // namespace

std::uint64_t gemm_blocks(const hw::NpuSpec& npu, const kernels::NpuWork& work) {
  std::uint64_t blocks = 0;
  for (const auto& step : work.steps) {
    if (step.kind == kernels::NpuStep::Kind::kHmxGemm) blocks += hw::plan_hmx_gemm_summary(npu, step.gemm, step.home).blocks;
    if (step.kind == kernels::NpuStep::Kind::kHmxCycles) ++blocks;
  }
  return blocks;
}

Task<> run_npu_work(hw::HexagonNpu& npu, const kernels::NpuWork& work, Progress* outputs, const hw::NpuRunMemo::Key* signature) {
  if (!outputs) {
    if (auto rec = alone_replay(npu, work, signature)) {
      co_await replay(npu, std::move(rec));  // held by the replay: the memo may start over before it ends
      co_return;
    }
  }
  if (!work.pipelined()) {
    for (std::size_t i = 0; i < work.steps.size();) {
      // Identical GEMMs back to back (a head's Q x K^T for each head and sequence, staged from
      // DRAM; operands already in TCM have no prologue or epilogue to merge and time the same)
      // run as one sequence of merged steps (run_hmx_gemm's copies); a consumer that streams the
      // outputs follows each GEMM's blocks instead.
      const std::size_t n = outputs ? 1 : identical_gemms_from(work.steps, i);
      if (n > 1) {
        std::string name;
        if (npu.tracing()) name = work.steps[i].name;
        const auto plan = npu.gemm_plan(work.steps[i].gemm, work.steps[i].home);  // held while they run
        co_await hw::run_hmx_gemm(npu, *plan, std::move(name), nullptr, n);
      } else {
        co_await run_npu_step(npu, work.steps[i], outputs);
      }
      i += std::max<std::size_t>(n, 1);
    }
    co_return;
  }
  Pipeline p(npu.sim(), work, outputs);
  TaskList streams;
  for (std::uint32_t s = 0; s < work.stages.size(); ++s) streams.push_back(run_stage(npu, p, s));
  co_await when_all(npu.sim(), std::move(streams));
}

// Work is taken by value: these run as spawned processes that outlive the caller's locals.
Task<> run_work(hw::Soc& soc, kernels::NpuWork work) { co_await run_npu_work(soc.npu(), work); }

Task<> run_work(hw::Soc& soc, kernels::GpuWork work) {
  for (auto& k : work.kernels) co_await soc.gpu().enqueue(k);
  co_await soc.gpu().finish();
}

Task<> run_work(hw::Soc& soc, kernels::CpuWork work) {
  for (const auto& t : work.tasks) co_await soc.cpu().run_on_fastest(t, work.threads);
}

}  // namespace socsim::runtime
