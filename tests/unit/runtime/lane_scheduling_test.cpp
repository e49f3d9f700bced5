// Lanes and pick policies in the executor (job.h, lane_gate.h, job_picker.h): one job per lane at a
// time, the NPU-stall picker's choice, and out-of-order never slower than in-order on random
// llm.npu-shaped DAGs (property test over seeds).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "sim/hw/soc.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/executor.h"
#include "sim/runtime/job_picker.h"
#include "sim/runtime/job_profiler.h"

namespace socsim::runtime {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

hw::SocSpec soc_spec() { return hw::load_soc_spec(kRoot + "/soc_configs/snapdragon-8gen3.yaml", {}); }

model::ModelConfig tiny() {
  model::ModelConfig m;
  m.id = "tiny";
  m.hidden = 64, m.intermediate = 128, m.layers = 1, m.heads = 4, m.kv_heads = 2, m.head_dim = 16, m.vocab = 100;
  return m;
}

// A job whose only op is an elementwise pass over `elements` values (time grows with it) on a
// unit and lane: the CPU lane "float", the NPU lane "npu" (HVX).
Job job_of(kernels::Unit unit, std::uint64_t elements, std::uint32_t chunk, std::uint32_t index) {
  Job j;
  j.unit = unit;
  j.lane = unit == kernels::Unit::kNpu ? "npu" : "float";
  j.precision = Precision::kFp32;
  j.cpu_threads = 2;
  j.name = "c" + std::to_string(chunk) + ".g" + std::to_string(index);
  model::OpDesc op{"work", model::OpKind::kElementwise};
  op.elements = elements;
  j.ops.push_back({op, model::Phase::kPrefill, 0, chunk});
  return j;
}

struct Outcome {
  Tick makespan = 0;
  std::vector<Tick> start, end;
};

Outcome run_plan(const hw::SocSpec& spec, const Plan& plan) {
  Simulator sim;
  hw::Soc soc(sim, spec, nullptr);
  const auto m = tiny();
  Executor ex(soc, m, {}, nullptr);
  sim.spawn(ex.run(plan), "executor");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  Outcome o;
  o.makespan = sim.now();
  for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) o.start.push_back(ex.job_start(j)), o.end.push_back(ex.job_end(j));
  return o;
}

// chunks x stages subgraphs alternating float (even stages) and NPU (odd); intra-chunk chain;
// stages in `cross` also wait for the same stage of every earlier chunk.
Plan grid_plan(std::mt19937_64& rng, std::uint32_t chunks, std::uint32_t stages, bool ooe) {
  std::uniform_int_distribution<std::uint64_t> size(1 << 12, 1 << 20);
  std::bernoulli_distribution cross_stage(0.3);
  std::vector<bool> cross(stages);
  for (auto&& c : cross) c = cross_stage(rng);
  Plan p;
  std::vector<std::vector<std::uint32_t>> id(chunks);
  for (std::uint32_t i = 0; i < chunks; ++i) {
    for (std::uint32_t s = 0; s < stages; ++s) {
      Job j = job_of(s % 2 ? kernels::Unit::kNpu : kernels::Unit::kCpu, size(rng), i, s);
      if (s > 0) j.deps.push_back(id[i][s - 1]);
      if (cross[s]) {
        for (std::uint32_t e = 0; e < i; ++e) j.deps.push_back(id[e][s]);
      }
      if (!ooe && !p.jobs.empty() && s == 0) j.deps.push_back(static_cast<std::uint32_t>(p.jobs.size() - 1));
      id[i].push_back(p.add(std::move(j)));
    }
  }
  p.pick = ooe ? PickPolicy::kNpuStall : PickPolicy::kProgramOrder;
  return p;
}

void expect_one_job_per_lane(const Plan& plan, const Outcome& o) {
  for (const char* lane : {"npu", "float"}) {
    std::vector<std::pair<Tick, Tick>> iv;
    for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
      if (plan.jobs[j].lane == lane) iv.emplace_back(o.start[j], o.end[j]);
    }
    std::sort(iv.begin(), iv.end());
    for (std::size_t k = 1; k < iv.size(); ++k) EXPECT_LE(iv[k - 1].second, iv[k].first) << lane;
  }
  for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
    for (auto d : plan.jobs[j].deps) EXPECT_LE(o.end[d], o.start[j]);  // dependencies respected
  }
}

TEST(LaneScheduling, OutOfOrderNeverLosesToInOrderOnRandomDags) {
  const auto spec = soc_spec();
  const auto m = tiny();
  int strictly_faster = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 a(seed), b(seed);
    const std::uint32_t chunks = 2 + seed % 4, stages = 3 + seed % 6;
    Plan ooe = grid_plan(a, chunks, stages, true), in_order = grid_plan(b, chunks, stages, false);
    JobProfiler profiler(spec, m);
    profiler.annotate(ooe);
    const auto o = run_plan(spec, ooe), i = run_plan(spec, in_order);
    expect_one_job_per_lane(ooe, o);
    expect_one_job_per_lane(in_order, i);
    EXPECT_LE(o.makespan, i.makespan) << "seed " << seed << ": " << chunks << " chunks x " << stages << " stages";
    strictly_faster += o.makespan < i.makespan;
  }
  // Overlapping the NPU with the float unit is the point: out of order wins outright nearly always.
  EXPECT_GE(strictly_faster, 36);
}

TEST(LaneScheduling, NpuStallScoreFavoursUnlockingNpuWork) {
  // g0 (CPU) unlocks n1 (NPU, 5 us); g2 (CPU) unlocks c3 (CPU, 7 us); n4 (NPU) unlocks c5 (2 us).
  Plan p;
  for (int k = 0; k < 6; ++k) p.add(job_of(k == 1 || k == 4 ? kernels::Unit::kNpu : kernels::Unit::kCpu, 1, 0, k));
  p.jobs[1].deps = {0}, p.jobs[3].deps = {2}, p.jobs[5].deps = {4};
  p.jobs[1].estimate = 5 * kMicrosecond, p.jobs[3].estimate = 7 * kMicrosecond, p.jobs[5].estimate = 2 * kMicrosecond;
  const auto dep = dependents_of(p);
  const std::vector<bool> none(6, false);
  EXPECT_DOUBLE_EQ(npu_stall_score(p, dep, 0, none, none), 5e-6);
  EXPECT_DOUBLE_EQ(npu_stall_score(p, dep, 2, none, none), 7e-6);
  EXPECT_DOUBLE_EQ(npu_stall_score(p, dep, 4, none, none), -2e-6);
  EXPECT_EQ(pick_job(PickPolicy::kNpuStall, p, dep, {0, 2}, none, none), 1u);  // unlocks more
  EXPECT_EQ(pick_job(PickPolicy::kProgramOrder, p, dep, {2, 0}, none, none), 1u);
  EXPECT_EQ(pick_job(PickPolicy::kArrival, p, dep, {2, 0}, none, none), 0u);
  // A dependent that already started (or waits for its lane) is not unlocked by g.
  std::vector<bool> started(6, false);
  started[3] = true;
  EXPECT_DOUBLE_EQ(npu_stall_score(p, dep, 2, none, started), 0.0);
}

TEST(LaneScheduling, DependentsAreTheReverseOfDepsInJobOrder) {
  Plan p;
  for (int k = 0; k < 6; ++k) p.add(job_of(kernels::Unit::kCpu, 1, 0, k));
  p.jobs[2].deps = {0, 1}, p.jobs[3].deps = {0}, p.jobs[5].deps = {0, 2, 3};
  const auto dep = dependents_of(p);
  ASSERT_EQ(dep.size(), 6u);
  const auto list = [&](std::uint32_t j) { return std::vector<std::uint32_t>(dep.of(j).begin(), dep.of(j).end()); };
  EXPECT_EQ(list(0), (std::vector<std::uint32_t>{2, 3, 5}));
  EXPECT_EQ(list(1), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(list(2), (std::vector<std::uint32_t>{5}));
  EXPECT_EQ(list(3), (std::vector<std::uint32_t>{5}));
  EXPECT_TRUE(list(4).empty());
  EXPECT_TRUE(list(5).empty());
  EXPECT_EQ(dependents_of(Plan{}).size(), 0u);
  p.jobs[4].deps = {9};  // no such job: named, not read out of bounds
  EXPECT_THROW(dependents_of(p), std::out_of_range);
}

}  // namespace
}  // namespace socsim::runtime
