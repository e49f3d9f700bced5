#include "sim/runtime/decode_step_copy.h"

#include <map>
#include <string_view>
#include <utility>

namespace socsim::runtime {

namespace {

bool same_shape(const model::OpDesc& a, const model::OpDesc& b) {
  return a.kind == b.kind && a.m == b.m && a.k == b.k && a.n == b.n && a.batch == b.batch && a.elements == b.elements &&
         a.weight_params == b.weight_params;
}

std::string decode_prefix(std::uint64_t step) { return "decode" + std::to_string(step) + "."; }

}  // namespace

DecodeStepCopier::DecodeStepCopier(const Plan& plan, std::uint32_t begin, std::uint32_t end, std::uint64_t from,
                                   const std::vector<model::GraphOp>& from_graph)
    : begin_(begin), end_(end), from_(from), from_graph_(from_graph), prefix_(decode_prefix(from)) {
  if (begin >= end || end > plan.jobs.size()) return;
  std::map<std::pair<std::uint32_t, std::string_view>, std::size_t> index;
  for (std::size_t i = 0; i < from_graph_.size(); ++i) {
    const auto& g = from_graph_[i];
    if (g.phase != model::Phase::kDecode || g.step != from) return;
    if (!index.emplace(std::pair{g.layer, std::string_view(g.op.name)}, i).second) return;  // names must identify ops
  }
  const auto dep_ok = [&](std::uint32_t d) { return (d >= begin && d < end) || (begin > 0 && d == begin - 1); };
  for (std::uint32_t j = begin; j < end; ++j) {
    const Job& job = plan.jobs[j];
    if (job.name.compare(0, prefix_.size(), prefix_) != 0) return;
    for (auto d : job.deps) {
      if (!dep_ok(d)) return;
    }
    for (auto d : job.start_deps) {
      if (!dep_ok(d)) return;
    }
    for (std::uint32_t o = 0; o < job.ops.size(); ++o) {
      const auto& g = job.ops[o];
      if (g.phase != model::Phase::kDecode || g.step != from) return;
      // The graph op it is, or the one it is a part of: its name, then the name cut at each '.'
      // from the right ("q_proj.gpu_part" -> "q_proj").
      std::string_view name = g.op.name;
      for (;;) {
        if (const auto it = index.find({g.layer, name}); it != index.end()) {
          const bool exact = name.size() == g.op.name.size() && same_shape(g.op, from_graph_[it->second].op);
          refs_.push_back({j - begin, o, it->second, exact});
          break;
        }
        const auto dot = name.rfind('.');
        if (dot == std::string_view::npos) break;  // not the graph's: step-invariant (the contract)
        name = name.substr(0, dot);
      }
    }
  }
  template_.assign(plan.jobs.begin() + begin, plan.jobs.begin() + end);
  // The names kept apart, without the step's prefix, which a copy puts in front: one allocation
  // for a copy's name, not a copy of the template's and then a longer one.
  names_.reserve(template_.size());
  for (Job& job : template_) {
    names_.push_back(job.name.substr(prefix_.size()));
    job.name.clear();
  }
  ok_ = true;
}

std::optional<std::uint32_t> DecodeStepCopier::append(Plan& plan, std::uint64_t to, const std::vector<model::GraphOp>& to_graph) const {
  if (!ok_ || to_graph.size() != from_graph_.size()) return std::nullopt;
  std::vector<bool> changed(to_graph.size(), false);
  for (std::size_t i = 0; i < to_graph.size(); ++i) {
    const auto& a = from_graph_[i];
    const auto& b = to_graph[i];
    if (b.op.name != a.op.name || b.layer != a.layer || b.phase != model::Phase::kDecode || b.step != to) return std::nullopt;
    changed[i] = !same_shape(a.op, b.op);
  }
  for (const auto& r : refs_) {
    if (!changed[r.graph]) continue;
    const Job& job = template_[r.job];
    if (!r.exact || !job.npu_graph.empty() || job.estimate != 0) return std::nullopt;
  }
  const auto first = static_cast<std::uint32_t>(plan.jobs.size());
  // A copy that begins the plan (a later window's first step) has nothing before it to wait for:
  // its jobs that waited for the job before the template wait for nothing, and so follow the
  // previous window's last job (Executor::continue_after), as the step planned there would.
  const bool opens = first == 0;
  const auto map = [&](std::vector<std::uint32_t>& deps) {
    std::size_t kept = 0;
    for (const std::uint32_t d : deps) {
      if (d >= begin_) {
        deps[kept++] = d - begin_ + first;
      } else if (!opens) {
        deps[kept++] = first - 1;  // (validated: below the template is only begin - 1)
      }
    }
    deps.resize(kept);
  };
  const std::uint32_t n = end_ - begin_;
  const std::string prefix = decode_prefix(to);
  auto ref = refs_.begin();
  for (std::uint32_t j = 0; j < n; ++j) {
    Job job = template_[j];
    job.name.reserve(prefix.size() + names_[j].size());
    job.name.append(prefix).append(names_[j]);
    const bool waits = !job.deps.empty();
    map(job.deps);
    map(job.start_deps);
    // A template that begins its plan (a decode window's first step) has jobs that wait for
    // nothing in it: they follow what ran before the plan (Executor::continue_after), as a later
    // step's follow the step before, which is the job before the copy.
    if (begin_ == 0 && !waits && !opens) job.deps.push_back(first - 1);
    for (auto& g : job.ops) g.step = to;
    for (; ref != refs_.end() && ref->job == j; ++ref) {
      if (changed[ref->graph]) job.ops[ref->op].op = to_graph[ref->graph].op;
    }
    plan.add(std::move(job));
  }
  return first;
}

}  // namespace socsim::runtime
