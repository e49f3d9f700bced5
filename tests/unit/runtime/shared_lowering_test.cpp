// A run's planning and its executor lower through one cache (simulate_run shares it with the
// system while the run lasts): a JobProfiler given the run's cache lowers into it when the cache
// was built for the very model and NPU it profiles for, and into a cache of its own otherwise; the
// system lets go of the cache when the run ends, also when the run throws.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/executor.h"
#include "sim/runtime/job_profiler.h"
#include "sim/runtime/lowering/sparse_attention_lowering.h"
#include "tests/support/configured_system.h"

namespace socsim::runtime {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

Job matmul_job(kernels::Unit unit) {
  model::OpDesc op;
  op.name = "q_proj";
  op.kind = model::OpKind::kMatMul;
  op.m = 128, op.k = 896, op.n = 896, op.batch = 1, op.weight_params = 896 * 896;
  Job j;
  j.name = "j";
  j.unit = unit;
  j.precision = unit == kernels::Unit::kNpu ? Precision::kW8A8 : Precision::kFp32;
  j.ops = {{op, model::Phase::kPrefill, 0, 0}};
  return j;
}

TEST(SharedLowering, AProfilerLowersIntoTheRunsCacheOnlyWhenBuiltForTheSameObjects) {
  const model::ModelConfig m = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
  const model::ModelConfig other = m;  // equal, another object
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  const hw::SocSpec spec = hw::parse_soc_spec(tree);
  for (auto unit : {kernels::Unit::kNpu, kernels::Unit::kCpu}) {
    lowering::LoweringCache run_cache(m, spec.npu);
    JobProfiler shared(spec, m, &run_cache);
    const Tick t = shared.duration(matmul_job(unit));
    EXPECT_GT(run_cache.size(), 0u);  // lowered into the run's cache
    // The same answer as a profiler lowering on its own.
    JobProfiler own(spec, m);
    EXPECT_EQ(own.duration(matmul_job(unit)), t);
    // A cache built for another (if equal) model is not used.
    lowering::LoweringCache foreign(other, spec.npu);
    JobProfiler refuses(spec, m, &foreign);
    EXPECT_EQ(refuses.duration(matmul_job(unit)), t);
    EXPECT_EQ(foreign.size(), 0u);
  }
}

// A one-thread top-k on a named cluster: profiled in closed form, one cache entry per KV length.
Job topk_job(std::uint64_t kv, const model::ModelConfig& m) {
  model::OpDesc op;
  op.name = "topk";
  op.kind = model::OpKind::kTopK;
  op.m = 64, op.k = m.head_dim, op.n = kv, op.batch = 2;
  op.weight_params = lowering::kRatioUnit / 5;
  Job j;
  j.name = "t";
  j.unit = kernels::Unit::kCpu;
  j.cpu_cluster = "mid";
  j.ops = {{op, model::Phase::kPrefill, 0, 0}};
  return j;
}

// Past the cache's bound, the profiler's one-job runs leave the run's cache whole (its entries are
// what the run's jobs look up); the run's executor starts it over after its plan ran.
TEST(SharedLowering, OnlyTheRunsExecutorBoundsTheRunsCache) {
  const model::ModelConfig m = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  const hw::SocSpec spec = hw::parse_soc_spec(tree);
  lowering::LoweringCache run_cache(m, spec.npu);
  JobProfiler p(spec, m, &run_cache);
  for (std::uint64_t kv = 64; kv < 64 + 4200; ++kv) p.duration(topk_job(kv, m));
  const std::size_t filled = run_cache.size();
  ASSERT_GT(filled, 4096u);
  p.duration(matmul_job(kernels::Unit::kNpu));  // simulated: a one-job run in the run's cache
  EXPECT_GT(run_cache.size(), filled);          // not started over
  // The run's executor, after a plan: started over.
  Simulator sim;
  hw::Soc soc(sim, spec, nullptr);
  Executor ex(soc, m, {}, nullptr, &run_cache);
  Plan plan;
  plan.add(matmul_job(kernels::Unit::kCpu));
  sim.spawn(ex.run(plan), "run");
  sim.run();
  EXPECT_EQ(run_cache.size(), 0u);
}

TEST(SharedLowering, TheSystemHoldsTheRunsCacheOnlyDuringTheRun) {
  for (const std::string id : {"shadowattn", "llm-npu"}) {
    test::ConfiguredSystem r("snapdragon-8gen3", {});
    r.req.model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
    r.req.prompt_tokens = 64, r.req.decode_tokens = 2;
    r.configure(id);
    EXPECT_EQ(r.system->shared_lowering(), nullptr) << id;
    const auto first = r.run();
    EXPECT_EQ(r.system->shared_lowering(), nullptr) << id;
    // A second run of the same system gives the same report (nothing of the first run's cache
    // lingers in the system).
    EXPECT_EQ(r.run().ttft_ms, first.ttft_ms) << id;
    // A run that throws (a host-memory limit no run fits) lets go of the cache too.
    r.req.max_host_memory = 1;
    EXPECT_ANY_THROW(r.run()) << id;
    EXPECT_EQ(r.system->shared_lowering(), nullptr) << id;
  }
}

}  // namespace
}  // namespace socsim::runtime
