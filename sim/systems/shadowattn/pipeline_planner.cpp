#include "sim/systems/shadowattn/pipeline_planner.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace socsim::systems::shadowattn {

namespace {

struct Lanes {
  double n = 0, t = 0, q = 0;
};

// One head on the CPU lanes after its group's launch ended at `npu_end`: the planner's unit of
// work, counted in `evals` (PipelinePlan::evaluations).
void run_head(Lanes& l, const PipelineInput& in, std::uint32_t h, double npu_end, std::uint64_t& evals) {
  ++evals;
  const HeadTimes& t = in.heads.at(h);
  if (in.shared_cpu) {
    l.q = std::max(l.q, npu_end) + t.topk + t.qkv;
    l.t = l.q;
  } else {
    l.t = std::max(npu_end, l.t) + t.topk;
    l.q = std::max(l.q, l.t) + t.qkv;
  }
}

// cpuPlan: greedy order of one group's heads.
std::vector<std::uint32_t> cpu_plan(const PipelineInput& in, Lanes& l, std::uint32_t g, double npu_end, std::uint64_t& evals) {
  std::vector<std::uint32_t> left = in.groups[g], seq;
  while (!left.empty()) {
    std::size_t best = 0;
    double best_q = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < left.size(); ++i) {
      Lanes trial = l;
      run_head(trial, in, left[i], npu_end, evals);
      if (trial.q < best_q) best_q = trial.q, best = i;
    }
    run_head(l, in, left[best], npu_end, evals);
    seq.push_back(left[best]);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(best));
  }
  return seq;
}

void check(const PipelineInput& in) {
  if (in.npu.size() != in.groups.size()) throw std::invalid_argument("pipeline: one NPU time per group");
}

}  // namespace

double pipeline_makespan(const PipelineInput& in, const std::vector<std::uint32_t>& npu_order,
                         const std::vector<std::uint32_t>& cpu_order) {
  std::uint64_t evals = 0;
  return pipeline_makespan(in, npu_order, cpu_order, evals);
}

double pipeline_makespan(const PipelineInput& in, const std::vector<std::uint32_t>& npu_order,
                         const std::vector<std::uint32_t>& cpu_order, std::uint64_t& evals) {
  check(in);
  std::vector<double> end(in.groups.size(), -1);
  std::vector<std::int64_t> group_of(in.heads.size(), -1);
  for (std::uint32_t g = 0; g < in.groups.size(); ++g) {
    for (auto h : in.groups[g]) group_of.at(h) = g;
  }
  double t = 0;
  for (auto g : npu_order) {
    if (g >= in.groups.size() || end[g] >= 0) throw std::invalid_argument("pipeline: NPU order is not a permutation");
    t += in.npu[g];
    end[g] = t;
  }
  if (npu_order.size() != in.groups.size()) throw std::invalid_argument("pipeline: NPU order is not a permutation");
  std::vector<bool> seen(in.heads.size(), false);
  Lanes l;
  for (auto h : cpu_order) {
    if (h >= in.heads.size() || seen[h] || group_of[h] < 0) throw std::invalid_argument("pipeline: CPU order is not a permutation");
    seen[h] = true;
    run_head(l, in, h, end[static_cast<std::size_t>(group_of[h])], evals);
  }
  if (cpu_order.size() != in.heads.size()) throw std::invalid_argument("pipeline: CPU order is not a permutation");
  return l.q;
}

PipelinePlan plan_in_order(const PipelineInput& in) {
  check(in);
  PipelinePlan p;
  p.npu_order.resize(in.groups.size());
  std::iota(p.npu_order.begin(), p.npu_order.end(), 0u);
  for (const auto& g : in.groups) p.cpu_order.insert(p.cpu_order.end(), g.begin(), g.end());
  p.makespan = pipeline_makespan(in, p.npu_order, p.cpu_order, p.evaluations);
  return p;
}

PipelinePlan plan_greedy(const PipelineInput& in) {
  check(in);
  PipelinePlan p;
  std::vector<std::uint32_t> left(in.groups.size());
  std::iota(left.begin(), left.end(), 0u);
  Lanes l;
  while (!left.empty()) {
    std::size_t best = 0;
    double best_q = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < left.size(); ++i) {
      Lanes trial = l;
      cpu_plan(in, trial, left[i], l.n + in.npu[left[i]], p.evaluations);
      if (trial.q < best_q) best_q = trial.q, best = i;
    }
    const std::uint32_t g = left[best];
    l.n += in.npu[g];
    const auto seq = cpu_plan(in, l, g, l.n, p.evaluations);
    p.npu_order.push_back(g);
    p.cpu_order.insert(p.cpu_order.end(), seq.begin(), seq.end());
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(best));
  }
  p.makespan = pipeline_makespan(in, p.npu_order, p.cpu_order, p.evaluations);
  return p;
}

PipelinePlan plan_brute_force(const PipelineInput& in) {
  check(in);
  PipelinePlan best;
  best.makespan = std::numeric_limits<double>::infinity();
  std::uint64_t evals = 0;
  std::vector<std::uint32_t> npu(in.groups.size());
  std::iota(npu.begin(), npu.end(), 0u);
  do {
    // Every permutation of the heads (a CPU order may interleave groups).
    std::vector<std::uint32_t> cpu(in.heads.size());
    std::iota(cpu.begin(), cpu.end(), 0u);
    do {
      const double t = pipeline_makespan(in, npu, cpu, evals);
      if (t < best.makespan) best = {npu, cpu, t, 0};
    } while (std::next_permutation(cpu.begin(), cpu.end()));
  } while (std::next_permutation(npu.begin(), npu.end()));
  best.evaluations = evals;
  return best;
}

namespace {

struct Job2 {
  std::uint32_t id = 0;
  double a = 0, b = 0;
};

// Johnson's rule for F2||Cmax; ties by id so the order is deterministic.
std::vector<std::uint32_t> johnson_order(std::vector<Job2> jobs) {
  std::vector<Job2> first, last;
  for (const auto& j : jobs) (j.a < j.b ? first : last).push_back(j);
  std::sort(first.begin(), first.end(), [](const Job2& x, const Job2& y) { return x.a != y.a ? x.a < y.a : x.id < y.id; });
  std::sort(last.begin(), last.end(), [](const Job2& x, const Job2& y) { return x.b != y.b ? x.b > y.b : x.id < y.id; });
  std::vector<std::uint32_t> order;
  for (const auto& j : first) order.push_back(j.id);
  for (const auto& j : last) order.push_back(j.id);
  return order;
}

// Groups in `npu_order`, each group's heads in `head_order` of that group; evaluated.
PipelinePlan group_plan(const PipelineInput& in, std::vector<std::uint32_t> npu_order, bool johnson_heads) {
  PipelinePlan p;
  p.npu_order = std::move(npu_order);
  for (auto g : p.npu_order) {
    if (!johnson_heads) {
      p.cpu_order.insert(p.cpu_order.end(), in.groups[g].begin(), in.groups[g].end());
      continue;
    }
    std::vector<Job2> heads;
    for (auto h : in.groups[g]) heads.push_back({h, in.heads.at(h).topk, in.heads.at(h).qkv});
    const auto seq = johnson_order(heads);
    p.cpu_order.insert(p.cpu_order.end(), seq.begin(), seq.end());
  }
  p.makespan = pipeline_makespan(in, p.npu_order, p.cpu_order, p.evaluations);
  return p;
}

}  // namespace

PipelinePlan plan_johnson(const PipelineInput& in) {
  check(in);
  std::vector<Job2> two, cds1, cds2;
  for (std::uint32_t g = 0; g < in.groups.size(); ++g) {
    double topk = 0, qkv = 0;
    for (auto h : in.groups[g]) topk += in.heads.at(h).topk, qkv += in.heads.at(h).qkv;
    two.push_back({g, in.npu[g], topk + qkv});
    cds1.push_back({g, in.npu[g], qkv});
    cds2.push_back({g, in.npu[g] + topk, topk + qkv});
  }
  if (in.shared_cpu) return group_plan(in, johnson_order(two), false);
  PipelinePlan x = group_plan(in, johnson_order(cds1), true), y = group_plan(in, johnson_order(cds2), true);
  PipelinePlan& best = y.makespan < x.makespan ? y : x;
  best.evaluations = x.evaluations + y.evaluations;
  return best;
}

PipelinePlan plan_pipeline(const PipelineInput& in, PlannerKind kind, std::size_t exact_up_to) {
  if (kind == PlannerKind::kPaper) return plan_greedy(in);
  if (in.heads.size() <= exact_up_to && in.groups.size() <= exact_up_to) return plan_brute_force(in);
  // Algorithm 1 first: another plan replaces it only when strictly shorter.
  std::vector<PipelinePlan> plans = {plan_greedy(in), plan_johnson(in), plan_in_order(in)};
  std::uint64_t evaluations = 0;
  std::size_t best = 0;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    evaluations += plans[i].evaluations;
    if (plans[i].makespan < plans[best].makespan) best = i;
  }
  PipelinePlan out = std::move(plans[best]);
  out.evaluations = evaluations;
  return out;
}

}  // namespace socsim::systems::shadowattn
