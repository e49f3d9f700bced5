// The executor runs ops through the kernels' faces: one graph call per NPU job for the summed
// nodes of its ops (the kernels' own graph calls are not issued again), and CPU jobs on their
// threads.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "sim/config/config_tree.h"
#include "sim/hw/soc.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/executor.h"
#include "sim/runtime/op_lowering.h"

namespace socsim::runtime {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

struct Runner {
  config::ConfigTree tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  hw::SocSpec spec = hw::parse_soc_spec(tree);
  model::ModelConfig model = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");

  std::map<OpTimeKey, Tick> run(const Plan& plan) {
    Simulator sim;
    hw::Soc soc(sim, spec, nullptr);
    Executor ex(soc, model, {}, nullptr);
    sim.spawn(ex.run(plan), "executor");
    sim.run();
    return ex.op_time();
  }
};

Job layer_job(const model::ModelConfig& m, kernels::Unit unit, Precision p, std::uint64_t tokens, std::uint32_t threads = 1) {
  Job j;
  j.name = "layer";
  j.unit = unit;
  j.precision = p;
  j.cpu_threads = threads;
  if (unit == kernels::Unit::kNpu) j.npu_graph = "g";
  for (const auto& op : model::decoder_layer_ops(m, {tokens, tokens, 1}, false)) j.ops.push_back({op, model::Phase::kPrefill, 0, 0});
  return j;
}

TEST(ExecutorLowering, OneGraphCallPerNpuJob) {
  Runner r;
  for (auto p : {Precision::kW8A8Group, Precision::kW8A8, Precision::kW4A16}) {
    Plan plan;
    plan.add(layer_job(r.model, kernels::Unit::kNpu, p, 64));
    plan.prepared_graphs.push_back("g");
    std::uint32_t nodes = 0;
    model::OpDesc scores{"", model::OpKind::kAttnScores};
    for (const auto& g : plan.jobs[0].ops) {
      if (g.op.kind == model::OpKind::kAttnScores) scores = g.op;
    }
    const auto shape = attention_shape_of(scores, r.model);
    for (const auto& g : plan.jobs[0].ops) nodes += lower_op_npu(g.op, r.model, p, r.spec.npu, &shape).graph_nodes;
    const auto t = r.run(plan);
    // One call: the execute overhead once, a dispatch per node; no kernel's call on top.
    EXPECT_EQ(t.at({"npu", "graph_call"}), r.spec.npu.graph.execute_overhead + nodes * r.spec.npu.graph.op_dispatch) << precision_name(p);
    EXPECT_GT(t.at({"npu", "softmax"}), 0u) << precision_name(p);  // the softmax op found its layer's attention
  }
}

TEST(ExecutorLowering, CpuJobsRunOnTheirThreads) {
  Runner r;
  Plan one, four;
  one.add(layer_job(r.model, kernels::Unit::kCpu, Precision::kW4A16, 64, 1));
  four.add(layer_job(r.model, kernels::Unit::kCpu, Precision::kW4A16, 64, 4));
  EXPECT_LT(r.run(four).at({"cpu", "matmul"}) * 2, r.run(one).at({"cpu", "matmul"}));
}

// Each job's own DRAM traffic, whatever runs beside it: a CPU job's is what its lowered tasks
// move and a GPU job's what its kernels move, although an NPU job streams its weights at the same
// time (the attention module's energy counts only its own traffic); the NPU job's is its port's,
// and together they are all the DRAM moved.
TEST(ExecutorLowering, OwnDramBytesExcludeConcurrentJobs) {
  Runner r;
  Plan plan;
  plan.add(layer_job(r.model, kernels::Unit::kNpu, Precision::kW8A8, 256));
  Job cpu = layer_job(r.model, kernels::Unit::kCpu, Precision::kW4A16, 64, 2);
  cpu.name = "cpu";
  for (auto& g : cpu.ops) g.layer = 1;  // its own layer: the executor finds each layer's attention shape
  plan.add(std::move(cpu));
  Job gpu = layer_job(r.model, kernels::Unit::kGpu, Precision::kFp16, 32);
  gpu.name = "gpu";
  for (auto& g : gpu.ops) g.layer = 2;
  plan.add(std::move(gpu));
  plan.prepared_graphs.push_back("g");
  std::uint64_t lowered = 0, gpu_lowered = 0;
  model::OpDesc scores{"", model::OpKind::kAttnScores};
  for (const auto& o : plan.jobs[1].ops) {
    if (o.op.kind == model::OpKind::kAttnScores) scores = o.op;
  }
  const auto shape = attention_shape_of(scores, r.model);
  for (const auto& g : plan.jobs[1].ops) {
    for (const auto& t : lower_op_cpu(g.op, r.model, Precision::kW4A16, 2, &shape).tasks) lowered += t.dram_bytes;
  }
  model::OpDesc gpu_scores{"", model::OpKind::kAttnScores};
  for (const auto& o : plan.jobs[2].ops) {
    if (o.op.kind == model::OpKind::kAttnScores) gpu_scores = o.op;
  }
  const auto gpu_shape = attention_shape_of(gpu_scores, r.model);
  for (const auto& g : plan.jobs[2].ops) {
    for (const auto& k : lower_op_gpu(g.op, r.model, Precision::kFp16, &gpu_shape).kernels) gpu_lowered += k.dram_bytes;
  }
  Simulator sim;
  hw::Soc soc(sim, r.spec, nullptr);
  Executor ex(soc, r.model, {}, nullptr);
  sim.spawn(ex.run(plan), "executor");
  sim.run();
  ASSERT_GT(lowered, 0u);
  // The two jobs overlap in time: the CPU job's span saw the NPU's traffic too.
  ASSERT_LT(ex.job_start(1), ex.job_end(0));
  EXPECT_GT(ex.job_dram_bytes_at_end(1) - ex.job_dram_bytes_at_start(1), lowered);
  EXPECT_EQ(ex.job_own_dram_bytes(1), lowered);
  EXPECT_GT(ex.job_own_dram_bytes(0), 0u);
  EXPECT_EQ(ex.job_own_dram_bytes(2), gpu_lowered);
  EXPECT_GT(gpu_lowered, 0u);
  // Independent jobs: no hand-over copies, so the three make up all the DRAM moved.
  EXPECT_EQ(ex.job_own_dram_bytes(0) + ex.job_own_dram_bytes(1) + ex.job_own_dram_bytes(2), soc.dram().total_bytes());
  EXPECT_FALSE(ex.npu_jobs_overlapped());
}

// Two NPU jobs with no lane between them run at once; the executor says so, because their own
// traffic (the NPU port's, job_own_dram_bytes) is then not told apart.
TEST(ExecutorLowering, OverlappingNpuJobsAreReported) {
  Runner r;
  Plan plan;
  plan.add(layer_job(r.model, kernels::Unit::kNpu, Precision::kW8A8, 64));
  Job second = layer_job(r.model, kernels::Unit::kNpu, Precision::kW8A8, 64);
  for (auto& g : second.ops) g.layer = 1;
  plan.add(std::move(second));
  plan.prepared_graphs.push_back("g");
  Simulator sim;
  hw::Soc soc(sim, r.spec, nullptr);
  Executor ex(soc, r.model, {}, nullptr);
  sim.spawn(ex.run(plan), "executor");
  sim.run();
  ASSERT_LT(ex.job_start(1), ex.job_end(0));
  EXPECT_TRUE(ex.npu_jobs_overlapped());
}

// Per-op time sums by key content, wherever the views point: the same kind spelled by two
// strings is one entry, and the result reads in the map's order.
TEST(OpTimes, SumsByContentWhateverTheViewsAddress) {
  OpTimes t;
  const std::string npu = "npu", matmul = "matmul", other_matmul = "matmul";
  t[{"gpu", "sync"}] += 5;
  t[{npu, matmul}] += 1;
  t[{npu, other_matmul}] += 2;  // same content at another address
  t[{"npu", "matmul"}] += 4;
  t[{npu, "softmax"}] += 8;
  t[{npu, matmul}] += 16;
  const auto sorted = t.sorted();
  ASSERT_EQ(sorted.size(), 3u);
  auto it = sorted.begin();
  EXPECT_EQ(it->first.unit, "gpu");
  EXPECT_EQ(it->second, 5u);
  ++it;
  EXPECT_EQ(it->first.kind, "matmul");
  EXPECT_EQ(it->second, 23u);
  ++it;
  EXPECT_EQ(it->first.kind, "softmax");
  EXPECT_EQ(it->second, 8u);
}

// Many keys taking turns (more than the table that remembers where a key's views were found
// has slots, so they collide), each spelled by two strings at other addresses: every add lands in
// its content's entry, as a map by content sums them.
TEST(OpTimes, ManyKeysTakingTurnsSumAsAMapByContent) {
  std::vector<std::string> kinds, copies;
  for (int i = 0; i < 150; ++i) kinds.push_back("kind" + std::to_string(i));
  copies = kinds;  // (the same contents at other addresses)
  OpTimes t;
  std::map<std::pair<std::string, std::string>, Tick> want;
  std::mt19937 gen(5);
  for (int n = 0; n < 20000; ++n) {
    const std::size_t k = gen() % kinds.size();
    const bool gpu = gen() % 2 == 0;
    const std::string& kind = gen() % 3 == 0 ? copies[k] : kinds[k];
    const Tick add = gen() % 100;
    t[{gpu ? "gpu" : "npu", kind}] += add;
    want[{gpu ? "gpu" : "npu", kinds[k]}] += add;
  }
  const auto got = t.sorted();
  ASSERT_EQ(got.size(), want.size());
  auto w = want.begin();
  for (const auto& [key, time] : got) {
    EXPECT_EQ(std::string(key.unit), w->first.first);
    EXPECT_EQ(std::string(key.kind), w->first.second);
    EXPECT_EQ(time, w->second) << w->first.second;
    ++w;
  }
}

}  // namespace
}  // namespace socsim::runtime
