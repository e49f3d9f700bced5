// HeteroLLM's fast synchronization in the executor (SyncPolicy::fast) against the standard path,
// on hand-built plans of GPU and NPU matmul jobs: dependency order, hand-over costs, and the NPU
// graph called while its GPU producer runs.
#include <gtest/gtest.h>

#include <random>

#include "sim/hw/soc.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/executor.h"
#include "tests/unit/functional/functional_test_helpers.h"

namespace socsim::systems {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

hw::SocSpec soc_spec() { return hw::load_soc_spec(kRoot + "/soc_configs/snapdragon-8gen3.yaml", {}); }

runtime::Job matmul_job(kernels::Unit unit, std::uint64_t m, std::uint64_t n, std::string name) {
  runtime::Job j;
  j.unit = unit;
  j.precision = runtime::Precision::kW4A16;
  j.name = name;
  model::OpDesc op{name, model::OpKind::kMatMul};
  op.m = m, op.k = 1024, op.n = n, op.weight_params = 1024 * n;
  j.ops.push_back({op, model::Phase::kPrefill, 0, 0});
  if (unit == kernels::Unit::kNpu) j.npu_graph = "g" + std::to_string(m) + "x" + std::to_string(n);
  return j;
}

// Random DAGs of GPU and NPU matmuls (split pairs and chains).
// Adds an NPU matmul job (its graph prepared) that waits for `deps`; returns its index.
std::uint32_t add_npu_job(runtime::Plan& plan, std::uint64_t m, std::uint64_t n, std::string name, std::vector<std::uint32_t> deps) {
  auto j = matmul_job(kernels::Unit::kNpu, m, n, std::move(name));
  j.deps = std::move(deps);
  plan.prepared_graphs.push_back(j.npu_graph);
  return plan.add(std::move(j));
}

runtime::Plan random_plan(std::uint32_t seed) {
  std::mt19937 gen(seed);
  runtime::Plan plan;
  std::uniform_int_distribution<int> unit(0, 1), size(1, 8);
  for (std::uint32_t i = 0; i < 24; ++i) {
    const auto u = unit(gen) ? kernels::Unit::kGpu : kernels::Unit::kNpu;
    auto j = matmul_job(u, 32 * static_cast<std::uint64_t>(size(gen)), 256 * static_cast<std::uint64_t>(size(gen)), "j" + std::to_string(i));
    if (u == kernels::Unit::kNpu) plan.prepared_graphs.push_back(j.npu_graph);
    for (std::uint32_t d = i >= 3 ? i - 3 : 0; d < i; ++d) {
      if (std::uniform_int_distribution<int>(0, 2)(gen) == 0 || d + 1 == i) j.deps.push_back(d);
    }
    plan.add(std::move(j));
  }
  plan.prefill_end = static_cast<std::uint32_t>(plan.jobs.size() - 1);
  return plan;
}

struct Ran {
  Tick makespan = 0;
  std::vector<Tick> ready, complete, start, end, engines;
  Tick cpu_busy = 0;
};

Ran run(const runtime::Plan& plan, bool fast) {
  const auto spec = soc_spec();
  Simulator sim;
  hw::Soc soc(sim, spec, nullptr);
  runtime::SyncPolicy sync;
  sync.shared_buffers = fast;
  sync.fast = fast;
  const auto m = functional::test::tiny_model();
  runtime::Executor ex(soc, m, sync, nullptr);
  sim.spawn(ex.run(plan), "executor");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  Ran r;
  r.makespan = sim.now();
  for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
    r.ready.push_back(ex.job_ready(j)), r.complete.push_back(ex.job_complete(j));
    r.start.push_back(ex.job_start(j)), r.end.push_back(ex.job_end(j));
    r.engines.push_back(ex.job_npu_engine_busy(j));
  }
  for (const auto& [cluster, busy] : soc.cpu().core_busy_by_cluster()) r.cpu_busy += busy;
  return r;
}

TEST(HeteroFastSync, NeverReordersADependencyAndCostsLessThanStandard) {
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE(seed);
    const auto plan = random_plan(seed);
    const Ran fast = run(plan, true), standard = run(plan, false);
    for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
      for (auto d : plan.jobs[j].deps) {
        // GPU after GPU: the in-order queue orders the kernels (the host may enqueue early).
        if (plan.jobs[j].unit == kernels::Unit::kGpu && plan.jobs[d].unit == kernels::Unit::kGpu) continue;
        // A consumer's ops begin only once its producer's work is complete (for a GPU producer:
        // its kernels have run, not just been queued).
        EXPECT_GE(fast.ready[j], fast.complete[d]) << plan.jobs[j].name << " after " << plan.jobs[d].name;
      }
    }
    EXPECT_LT(fast.makespan, standard.makespan);
    EXPECT_GT(fast.cpu_busy, 0u);  // the polling core
  }
}

TEST(HeteroFastSync, StandardPathLaunchesTheGpuHalfAfterTheNpuHalfsHandOver) {
  // A GPU producer, then a split op: the NPU half drains the queue and copies (standard path);
  // the GPU half, held by start_deps, is enqueued only after that, so the drain cannot wait for it.
  runtime::Plan plan;
  plan.add(matmul_job(kernels::Unit::kGpu, 256, 2048, "producer"));
  add_npu_job(plan, 256, 2048, "half.npu", {0});
  auto gpu = matmul_job(kernels::Unit::kGpu, 256, 1024, "half.gpu");
  gpu.deps = {0};
  gpu.start_deps = {1};
  plan.add(std::move(gpu));
  add_npu_job(plan, 256, 512, "consumer", {1, 2});
  const Ran standard = run(plan, false), fast = run(plan, true);
  EXPECT_GE(standard.ready[2], standard.ready[1]);
  EXPECT_GE(standard.ready[3], standard.complete[1]);
  // Fast: both halves start once the producer's kernels are done; the consumer after both.
  EXPECT_GE(fast.ready[1], fast.complete[0]);
  EXPECT_GE(fast.ready[3], std::max(fast.complete[1], fast.complete[2]));
  EXPECT_LT(fast.makespan, standard.makespan);
}

TEST(HeteroFastSync, TheNpuGraphIsCalledWhileItsGpuProducerRuns) {
  // Fast sync: the graph's own synchronization point waits for the GPU's flag, so the host calls
  // the graph as soon as the producer is enqueued and the call's fixed cost (execute_overhead +
  // one node's dispatch) runs beside the GPU kernel. Standard: the call follows the drain.
  const auto spec = soc_spec();
  const Tick call = spec.npu.graph.execute_overhead + spec.npu.graph.op_dispatch;
  runtime::Plan alone;
  add_npu_job(alone, 256, 512, "consumer", {});
  const Ran lone = run(alone, true);
  const Tick own = lone.end[0] - lone.start[0];  // call + compute
  ASSERT_GT(own, call);
  // The call's fixed cost is not engine activity (energy: the NPU idles through it); the compute
  // keeps an engine (DMA, HMX) busy throughout.
  EXPECT_EQ(lone.engines[0], own - call);
  runtime::Plan plan;
  plan.add(matmul_job(kernels::Unit::kGpu, 256, 2048, "producer"));
  add_npu_job(plan, 256, 512, "consumer", {0});
  const Ran fast = run(plan, true), standard = run(plan, false);
  ASSERT_GT(fast.complete[0] - fast.start[1], call);  // the producer outlasts the call
  EXPECT_GE(fast.ready[1], fast.complete[0]);         // computing only after the producer's flag
  // After the flag: the compute alone, plus at most the host's poll interval and notification.
  EXPECT_GE(fast.end[1] - fast.complete[0], own - call);
  EXPECT_LE(fast.end[1] - fast.complete[0], own - call + 2 * spec.cpu.poll_interval);
  EXPECT_GE(standard.end[1] - standard.complete[0], own);  // the whole call after the drain
  EXPECT_EQ(fast.engines[1], own - call);                   // the early call is not engine time either
}

}  // namespace
}  // namespace socsim::systems
