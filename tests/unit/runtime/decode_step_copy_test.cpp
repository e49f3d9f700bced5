// Decode steps copied from a planned one (DecodeStepCopier) are the jobs planning them gives: a
// simple chained planner and HeteroLLM's plans (copied steps against the same steps planned in
// windows of their own), and the templates a copy cannot follow are refused with the plan
// unchanged.
#include <gtest/gtest.h>

#include <utility>

#include "sim/model/model_config.h"
#include "sim/runtime/decode_step_copy.h"
#include "sim/runtime/job_name.h"
#include "tests/support/configured_system.h"

namespace socsim::runtime {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

void expect_same_op(const model::GraphOp& a, const model::GraphOp& b, const std::string& where) {
  EXPECT_EQ(a.op.name, b.op.name) << where;
  EXPECT_EQ(a.op.kind, b.op.kind) << where;
  EXPECT_EQ(a.op.m, b.op.m) << where << " " << a.op.name;
  EXPECT_EQ(a.op.k, b.op.k) << where << " " << a.op.name;
  EXPECT_EQ(a.op.n, b.op.n) << where << " " << a.op.name;
  EXPECT_EQ(a.op.batch, b.op.batch) << where;
  EXPECT_EQ(a.op.elements, b.op.elements) << where;
  EXPECT_EQ(a.op.weight_params, b.op.weight_params) << where;
  EXPECT_EQ(a.phase, b.phase) << where;
  EXPECT_EQ(a.layer, b.layer) << where;
  EXPECT_EQ(a.step, b.step) << where;
}

// Jobs equal but for their dependencies, which the callers compare with their own offsets.
void expect_same_job_body(const Job& a, const Job& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.unit, b.unit) << a.name;
  EXPECT_EQ(a.precision, b.precision) << a.name;
  EXPECT_EQ(a.npu_graph, b.npu_graph) << a.name;
  ASSERT_EQ(a.ops.size(), b.ops.size()) << a.name;
  for (std::size_t o = 0; o < a.ops.size(); ++o) expect_same_op(a.ops[o], b.ops[o], a.name);
}

model::ModelConfig qwen() { return model::load_model_config(kRoot + "/models/qwen2-0.5b.json"); }

// One job per op, each waiting for the one before, then the sampler: the plan every step's copy
// must reproduce.
void plan_step_chained(Plan& plan, const std::vector<model::GraphOp>& graph, std::uint64_t step) {
  const auto chain = [&](Job j) {
    if (!plan.jobs.empty()) j.deps = {static_cast<std::uint32_t>(plan.jobs.size() - 1)};
    plan.add(std::move(j));
  };
  for (const auto& g : graph) {
    Job j;
    j.name = op_job_name(g);
    j.unit = g.op.kind == model::OpKind::kMatMul ? kernels::Unit::kNpu : kernels::Unit::kGpu;
    j.ops = {g};
    chain(std::move(j));
  }
  Job s;
  s.name = "decode" + std::to_string(step) + ".sample";
  s.ops = {{model::OpDesc{"sample", model::OpKind::kElementwise, 0, 0, 0, 1, 1000, 0}, model::Phase::kDecode, 0, step}};
  chain(std::move(s));
}

Plan prefill_job() {
  Plan plan;
  Job p;
  p.name = "prefill0.L0.all";
  p.ops = {{model::OpDesc{"all", model::OpKind::kElementwise, 0, 0, 0, 1, 1, 0}, model::Phase::kPrefill, 0, 0}};
  plan.add(std::move(p));
  return plan;
}

TEST(DecodeStepCopy, CopiedStepsAreThePlannedOnes) {
  const auto m = qwen();
  const std::uint64_t prompt = 37, batch = 3, steps = 5;
  Plan planned = prefill_job(), copied = prefill_job();
  for (std::uint64_t s = 0; s < steps; ++s) plan_step_chained(planned, model::decode_step_graph(m, prompt, s, batch), s);
  const auto g0 = model::decode_step_graph(m, prompt, 0, batch);
  plan_step_chained(copied, g0, 0);
  const DecodeStepCopier copier(copied, 1, static_cast<std::uint32_t>(copied.jobs.size()), 0, g0);
  ASSERT_TRUE(copier.ok());
  for (std::uint64_t s = 1; s < steps; ++s) {
    const auto before = copied.jobs.size();
    const auto first = copier.append(copied, s, model::decode_step_graph(m, prompt, s, batch));
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(*first, before);
  }
  ASSERT_EQ(copied.jobs.size(), planned.jobs.size());
  std::size_t attention_ops = 0;
  for (std::size_t j = 0; j < planned.jobs.size(); ++j) {
    expect_same_job_body(copied.jobs[j], planned.jobs[j]);
    EXPECT_EQ(copied.jobs[j].deps, planned.jobs[j].deps) << planned.jobs[j].name;
    for (const auto& g : planned.jobs[j].ops) attention_ops += g.op.name == "attn_scores" && g.step > 0 ? 1 : 0;
  }
  // The copies changed what the step changes: every layer's attention at its own context.
  EXPECT_EQ(attention_ops, m.layers * (steps - 1));
}

TEST(DecodeStepCopy, ATemplateThatBeginsThePlanIsCopiedAfterTheStepBefore) {
  // A decode window's first step begins its plan: its first job waits for nothing there (it
  // follows the window before). Its copies' first jobs wait for the step before, as planned.
  const auto m = qwen();
  const std::uint64_t prompt = 21, batch = 2, steps = 4;
  Plan planned, copied;
  for (std::uint64_t s = 0; s < steps; ++s) plan_step_chained(planned, model::decode_step_graph(m, prompt, s, batch), s);
  const auto g0 = model::decode_step_graph(m, prompt, 0, batch);
  plan_step_chained(copied, g0, 0);
  ASSERT_TRUE(copied.jobs.front().deps.empty());
  const DecodeStepCopier copier(copied, 0, static_cast<std::uint32_t>(copied.jobs.size()), 0, g0);
  ASSERT_TRUE(copier.ok());
  for (std::uint64_t s = 1; s < steps; ++s) ASSERT_TRUE(copier.append(copied, s, model::decode_step_graph(m, prompt, s, batch)).has_value());
  ASSERT_EQ(copied.jobs.size(), planned.jobs.size());
  const std::size_t per_step = planned.jobs.size() / steps;
  for (std::size_t j = 0; j < planned.jobs.size(); ++j) {
    expect_same_job_body(copied.jobs[j], planned.jobs[j]);
    EXPECT_EQ(copied.jobs[j].deps, planned.jobs[j].deps) << planned.jobs[j].name;
  }
  // (What the copies add: each later step's first job waits for the step before's sampler.)
  for (std::uint64_t s = 1; s < steps; ++s) {
    EXPECT_EQ(copied.jobs[s * per_step].deps, std::vector<std::uint32_t>{static_cast<std::uint32_t>(s * per_step - 1)});
  }
}

TEST(DecodeStepCopy, TemplatesACopyCannotFollowAreRefused) {
  const auto m = qwen();
  const auto g0 = model::decode_step_graph(m, 10, 0, 1), g1 = model::decode_step_graph(m, 10, 1, 1);
  {
    // A job waiting for a job before the one the step waits for.
    Plan plan = prefill_job();
    Job more;
    more.name = "prefill0.L0.more";
    more.deps = {0};
    plan.add(std::move(more));
    const auto begin = static_cast<std::uint32_t>(plan.jobs.size());
    plan_step_chained(plan, g0, 0);
    plan.jobs.back().deps.push_back(0);
    EXPECT_FALSE(DecodeStepCopier(plan, begin, static_cast<std::uint32_t>(plan.jobs.size()), 0, g0).ok());
  }
  {
    // A name of another form, or an op of another step.
    Plan plan = prefill_job();
    plan_step_chained(plan, g0, 0);
    const auto end = static_cast<std::uint32_t>(plan.jobs.size());
    plan.jobs[3].name = "step0.x";
    EXPECT_FALSE(DecodeStepCopier(plan, 1, end, 0, g0).ok());
    plan.jobs[3].name = "decode0.x";
    plan.jobs[4].ops[0].step = 1;
    EXPECT_FALSE(DecodeStepCopier(plan, 1, end, 0, g0).ok());
  }
  Plan plan = prefill_job();
  plan_step_chained(plan, g0, 0);
  const auto end = static_cast<std::uint32_t>(plan.jobs.size());
  const auto attention = std::find_if(plan.jobs.begin(), plan.jobs.end(), [](const Job& j) { return j.ops[0].op.name == "attn_scores"; });
  ASSERT_NE(attention, plan.jobs.end());
  {
    // The graphs not aligned op by op.
    const DecodeStepCopier copier(plan, 1, end, 0, g0);
    ASSERT_TRUE(copier.ok());
    auto shorter = g1;
    shorter.pop_back();
    EXPECT_FALSE(copier.append(plan, 1, shorter));
    EXPECT_FALSE(copier.append(plan, 1, g0));  // step 0's graph for step 1
    EXPECT_EQ(plan.jobs.size(), end);
  }
  {
    // A static graph's name follows the shapes of its ops: a changing op in a named graph.
    attention->npu_graph = "g";
    const DecodeStepCopier copier(plan, 1, end, 0, g0);
    EXPECT_FALSE(copier.append(plan, 1, g1));
    EXPECT_EQ(plan.jobs.size(), end);
    attention->npu_graph.clear();
  }
  {
    // A part of a changing op (its rows halved): the copy cannot recompute the parts.
    attention->ops[0].op.m = 1;
    attention->ops[0].op.batch /= 2;
    const DecodeStepCopier copier(plan, 1, end, 0, g0);
    ASSERT_TRUE(copier.ok());
    EXPECT_FALSE(copier.append(plan, 1, g1));
    EXPECT_EQ(plan.jobs.size(), end);
    // A part named "<op>.<suffix>" is one too.
    attention->ops[0] = g0[static_cast<std::size_t>(attention - plan.jobs.begin()) - 1];
    attention->ops[0].op.name += ".gpu_part";
    const DecodeStepCopier renamed(plan, 1, end, 0, g0);
    ASSERT_TRUE(renamed.ok());
    EXPECT_FALSE(renamed.append(plan, 1, g1));
    EXPECT_EQ(plan.jobs.size(), end);
  }
}

// HeteroLLM copies every decode step after the first from it: each copied step equals the same
// step planned alone (a decode window of one step, whose jobs start at 0 and wait for nothing).
TEST(DecodeStepCopy, HeteroLlmCopiesAreTheStepsPlannedAlone) {
  // (The standard path's GPU halves start after their NPU halves' hand-over: start_deps.)
  const std::vector<std::pair<const char*, std::vector<std::string>>> configs = {
      {"hetero-tensor", {}}, {"hetero-layer", {}}, {"hetero-tensor", {"heterollm.fast_sync=false"}}};
  // Windows are planned by the system that planned the whole (which copies its template into
  // them) and by a fresh one (whose first window plans its step and is the template of the rest).
  for (const auto& [id, sets] : configs) {
    for (const bool fresh : {false, true}) {
      test::ConfiguredSystem c("snapdragon-8gen3", sets), other("snapdragon-8gen3", sets);
      c.req.model = qwen();
      c.configure(id);
      other.req.model = c.req.model;
      other.configure(id);
      test::ConfiguredSystem& windows = fresh ? other : c;
      const std::uint64_t prompt = 300, decode = 4, batch = 2;
      const Plan whole = c.system->plan(c.req.soc, c.req.model, {prompt, decode, batch});
      ASSERT_EQ(whole.decode_step_end.size(), decode);
      std::size_t starts = 0;
      for (std::uint64_t s = 1; s < decode; ++s) {
        systems::RequestShape window{prompt, 1, batch};
        window.first_step = s, window.decode_only = true, window.request_decode = decode;
        const Plan alone = windows.system->plan(windows.req.soc, windows.req.model, window);
        const std::uint32_t begin = whole.decode_step_end[s - 1] + 1;
        ASSERT_EQ(whole.decode_step_end[s] + 1 - begin, alone.jobs.size()) << id << " step " << s;
        for (std::uint32_t j = 0; j < alone.jobs.size(); ++j) {
          const Job& a = whole.jobs[begin + j];
          expect_same_job_body(a, alone.jobs[j]);
          std::vector<std::uint32_t> relative;
          for (auto d : a.deps) {
            if (d >= begin) relative.push_back(d - begin);
            else EXPECT_EQ(d, begin - 1) << a.name;  // the step before's end, which the window lacks
          }
          EXPECT_EQ(relative, alone.jobs[j].deps) << a.name;
          std::vector<std::uint32_t> start_relative;
          for (auto d : a.start_deps) {
            if (d >= begin) {
              start_relative.push_back(d - begin);
            } else {
              ADD_FAILURE() << a.name << " starts after a job of another step";
            }
          }
          EXPECT_EQ(start_relative, alone.jobs[j].start_deps) << a.name;
          starts += a.start_deps.size();
        }
      }
      if (!sets.empty()) {
        EXPECT_GT(starts, 0u) << "the standard path's copies carry their start dependencies";
      }
    }
  }
}

// A system configured again (other options) plans a decode window as a fresh one: the step it
// kept as the template of later windows was made under the options before.
TEST(DecodeStepCopy, AHeteroLlmConfiguredAgainDoesNotCopyTheStepItKept) {
  test::ConfiguredSystem c("snapdragon-8gen3", {}), slow("snapdragon-8gen3", {"heterollm.fast_sync=false"});
  c.req.model = qwen();
  c.configure("hetero-tensor");
  slow.req.model = c.req.model;
  slow.configure("hetero-tensor");
  const std::uint64_t prompt = 300, decode = 4, batch = 2;
  (void)c.system->plan(c.req.soc, c.req.model, {prompt, decode, batch});  // keeps its first step
  auto root = slow.tree.root();
  c.system->configure(root, c.req.soc, c.req.model);  // the standard path: start dependencies
  systems::RequestShape window{prompt, 1, batch};
  window.first_step = 1, window.decode_only = true, window.request_decode = decode;
  const Plan again = c.system->plan(c.req.soc, c.req.model, window);
  const Plan fresh = slow.system->plan(slow.req.soc, slow.req.model, window);
  ASSERT_EQ(again.jobs.size(), fresh.jobs.size());
  std::size_t starts = 0;
  for (std::size_t j = 0; j < fresh.jobs.size(); ++j) {
    expect_same_job_body(again.jobs[j], fresh.jobs[j]);
    EXPECT_EQ(again.jobs[j].deps, fresh.jobs[j].deps) << fresh.jobs[j].name;
    EXPECT_EQ(again.jobs[j].start_deps, fresh.jobs[j].start_deps) << fresh.jobs[j].name;
    starts += fresh.jobs[j].start_deps.size();
  }
  EXPECT_GT(starts, 0u) << "the standard path's window holds start dependencies";
}

}  // namespace
}  // namespace socsim::runtime
