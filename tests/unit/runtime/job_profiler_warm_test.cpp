// JobProfiler::warm_duration's closed form for shadowAttn's CPU jobs (top-k, sparse attention,
// block-sparse attention) equals, to the tick, what the simulation gives for the job on a warm
// core: the job run twice less the job run once on an idle SoC (the first run pays the cluster's
// wake-up, the second does not). shadowAttn's planner profiles a job per head per layer and
// chunk, so the closed form is what keeps planning from simulating tens of thousands of jobs.
#include <gtest/gtest.h>

#include "kernels/attention/attention_lower.h"
#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job_profiler.h"
#include "sim/runtime/lowering/sparse_attention_lowering.h"

namespace socsim::runtime {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

Job sparse_job(model::OpKind kind, std::uint64_t q, std::uint64_t kv, std::uint64_t heads, double ratio, const std::string& cluster,
               std::uint32_t threads, const model::ModelConfig& m) {
  model::OpDesc op;
  op.name = kind == model::OpKind::kTopK ? "topk" : "sparse_attention";
  op.kind = kind;
  op.m = q, op.k = m.head_dim, op.n = kv, op.batch = heads;
  op.weight_params = static_cast<std::uint64_t>(ratio * lowering::kRatioUnit);
  if (kind == model::OpKind::kSparseAttn) op.elements = kernels::sparse_kept_total(lowering::sparse_op_shape(op, m), ratio);
  Job j;
  j.name = "j";
  j.unit = kernels::Unit::kCpu;
  j.precision = Precision::kFp32;
  j.cpu_cluster = cluster;
  j.cpu_threads = threads;
  j.ops = {{op, model::Phase::kPrefill, 0, 0}};
  return j;
}

Tick simulated_warm(JobProfiler& p, const Job& j) {
  Job twice = j;
  twice.ops.insert(twice.ops.end(), j.ops.begin(), j.ops.end());
  return p.simulated_duration(twice) - p.simulated_duration(j);
}

TEST(JobProfilerWarm, ClosedFormEqualsTheSimulatedWarmRun) {
  const model::ModelConfig m = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");
  int checked = 0;
  for (const char* soc_id : {"snapdragon-8gen3", "snapdragon-8gen2"}) {
    auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/" + soc_id + ".yaml");
    const hw::SocSpec spec = hw::parse_soc_spec(tree);
    JobProfiler p(spec, m);
    for (auto kind : {model::OpKind::kTopK, model::OpKind::kSparseAttn, model::OpKind::kBlockSparseAttn}) {
      for (const char* cluster : {"prime", "mid", "little"}) {
        // One thread in closed form, more simulated (uneven byte splits): equal either way.
        for (std::uint32_t threads : {1u, 2u, 3u, 5u}) {
          if (threads > spec.cpu.cluster(cluster).cores) continue;
          for (std::uint64_t kv : {256u, 1000u, 3840u}) {
            for (double ratio : {0.05, 0.2, 0.93}) {
              const Job j = sparse_job(kind, 256, kv, 3, ratio, cluster, threads, m);
              EXPECT_EQ(p.warm_duration(j), simulated_warm(p, j))
                  << soc_id << " " << model::op_kind_name(kind) << " " << cluster << " x" << threads << " kv " << kv << " ratio " << ratio;
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// duration() (the job on an idle SoC: its cluster starts cold) in closed form too: the warm
// closed form plus the wake-up, equal to the simulation to the tick, also when idle_threshold is 0
// (every task of the job then finds its cluster cold) and for jobs of several ops.
TEST(JobProfilerWarm, ColdClosedFormEqualsTheSimulatedRun) {
  const model::ModelConfig m = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");
  int checked = 0;
  for (const char* soc_id : {"snapdragon-8gen3", "snapdragon-8gen2"}) {
    for (bool zero_threshold : {false, true}) {
      auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/" + soc_id + ".yaml");
      hw::SocSpec spec = hw::parse_soc_spec(tree);
      if (zero_threshold) spec.cpu.idle_threshold = 0;
      ASSERT_GT(spec.cpu.idle_wakeup, 0u);
      JobProfiler p(spec, m);
      for (auto kind : {model::OpKind::kTopK, model::OpKind::kSparseAttn, model::OpKind::kBlockSparseAttn}) {
        for (const char* cluster : {"prime", "mid", "little"}) {
          for (std::uint64_t kv : {256u, 3840u}) {
            for (double ratio : {0.05, 0.93}) {
              Job j = sparse_job(kind, 256, kv, 3, ratio, cluster, 1, m);
              EXPECT_EQ(p.duration(j), p.simulated_duration(j)) << soc_id << " " << model::op_kind_name(kind) << " " << cluster;
              j.ops.push_back(sparse_job(model::OpKind::kTopK, 128, kv, 2, ratio, cluster, 1, m).ops.front());
              EXPECT_EQ(p.duration(j), p.simulated_duration(j)) << soc_id << " two ops " << model::op_kind_name(kind) << " " << cluster;
              checked += 2;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 2 * 2 * 3 * 3 * 2 * 2 * 2);
}

// The planner's own job (scalar work on one core, no DRAM) in closed form as well.
TEST(JobProfilerWarm, ThePlannerJobInClosedForm) {
  const model::ModelConfig m = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  const hw::SocSpec spec = hw::parse_soc_spec(tree);
  JobProfiler p(spec, m);
  for (std::uint64_t evaluations : {1u, 577u, 40000u}) {
    Job j = sparse_job(model::OpKind::kTopK, 256, 1024, 1, 0.2, "mid", 1, m);
    j.ops.front().op = {};
    j.ops.front().op.name = "pipeline_plan";
    j.ops.front().op.kind = model::OpKind::kPipelinePlan;
    j.ops.front().op.elements = evaluations * 16;
    EXPECT_EQ(p.warm_duration(j), simulated_warm(p, j)) << evaluations;
  }
}

// Jobs the closed form does not cover (another unit, no cluster) are simulated.
TEST(JobProfilerWarm, OtherJobsAreSimulated) {
  const model::ModelConfig m = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  const hw::SocSpec spec = hw::parse_soc_spec(tree);
  JobProfiler p(spec, m);
  Job j = sparse_job(model::OpKind::kTopK, 256, 1024, 2, 0.2, "", 1, m);
  EXPECT_EQ(p.warm_duration(j), simulated_warm(p, j));
  EXPECT_GT(p.warm_duration(j), 0u);
}

// profile() is duration() and warm_duration() at once, for closed-form jobs and simulated ones
// alike; annotate() keeps an estimate a planner set from it and fills the others.
TEST(JobProfilerWarm, ProfileIsDurationAndWarmDuration) {
  const model::ModelConfig m = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  const hw::SocSpec spec = hw::parse_soc_spec(tree);
  JobProfiler p(spec, m);
  std::vector<Job> jobs;
  for (const char* cluster : {"mid", ""}) {  // closed form, simulated
    for (std::uint32_t threads : {1u, 2u}) {
      jobs.push_back(sparse_job(model::OpKind::kSparseAttn, 256, 1000, 3, 0.2, cluster, threads, m));
      jobs.push_back(sparse_job(model::OpKind::kTopK, 128, 3840, 2, 0.93, cluster, threads, m));
    }
  }
  Plan plan;
  for (const Job& j : jobs) {
    const JobProfiler::Profile pr = p.profile(j);
    EXPECT_EQ(pr.cold, p.duration(j)) << j.cpu_cluster << " x" << j.cpu_threads;
    EXPECT_EQ(pr.warm, p.warm_duration(j)) << j.cpu_cluster << " x" << j.cpu_threads;
    EXPECT_GT(pr.cold, pr.warm);  // the first task wakes the idle cluster
    Job copy = j;
    plan.add(std::move(copy));
  }
  plan.jobs.front().estimate = 12345;  // set by a planner: kept
  p.annotate(plan);
  EXPECT_EQ(plan.jobs.front().estimate, 12345u);
  for (std::size_t i = 1; i < plan.jobs.size(); ++i) EXPECT_EQ(plan.jobs[i].estimate, p.duration(jobs[i])) << i;
}

}  // namespace
}  // namespace socsim::runtime

namespace socsim::runtime {
namespace {

// Heads of one shape share their lowered work (the cache keys leave out ".h<N>"), and the work is
// named after the stem, so a head's trace spans never carry another head's name, whichever head
// was lowered first.
TEST(LoweringCacheHeads, HeadsShareWorkNamedAfterTheStem) {
  const model::ModelConfig m = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  const hw::SocSpec spec = hw::parse_soc_spec(tree);
  lowering::LoweringCache cache(m, spec.npu);
  for (auto kind : {model::OpKind::kTopK, model::OpKind::kSparseAttn}) {
    model::OpDesc h2 = sparse_job(kind, 256, 1024, 1, 0.2, "mid", 1, m).ops.front().op, h7 = h2;
    h2.name += ".h2";
    h7.name += ".h7";
    const kernels::CpuWork& a = cache.cpu(h2, Precision::kFp32, 1, nullptr);
    const kernels::CpuWork& b = cache.cpu(h7, Precision::kFp32, 1, nullptr);
    EXPECT_EQ(&a, &b) << model::op_kind_name(kind);  // one entry
    for (const auto& t : a.tasks) EXPECT_EQ(t.name.find(".h"), std::string::npos) << t.name;
    const kernels::GpuWork& g = cache.gpu(h7, Precision::kFp32, nullptr);
    for (const auto& k : g.kernels) EXPECT_EQ(k.name.find(".h"), std::string::npos) << k.name;
  }
}

}  // namespace
}  // namespace socsim::runtime
