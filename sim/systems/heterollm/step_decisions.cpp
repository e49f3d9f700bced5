// HeteroLLM's partitions decided in their step where the GPU is home (step_context.h): the
// step's matmul groups together, by coordinate descent from the paper's choices.
#include <algorithm>
#include <bit>
#include <map>

#include "sim/runtime/op_lowering.h"
#include "sim/systems/heterollm/heterollm_system.h"
#include "sim/systems/heterollm/step_context.h"

namespace socsim::systems {

heterollm::PartTimes HeteroLlm::step_part_times(const heterollm::Partition& c) {
  return predictor_ ? predictor_->time(c) : profiler_->alone(c);
}

void HeteroLlm::decide_step(const hw::SocSpec& soc, const model::ModelConfig& m, const std::vector<model::GraphOp>& real,
                            const std::vector<model::GraphOp>& padded) {
  if (real.empty()) return;
  const bool decode = real.front().phase == model::Phase::kDecode;
  // Only where the GPU is home and the solver has a choice to make there (hetero-layer decodes
  // on the GPU alone).
  if ((!decode && options_.prefill_npu_home) || (decode && !tensor_)) return;
  // The matmul groups (first op, end, decision key) in program order.
  struct Instance {
    std::size_t begin, end;
    DecisionKey key;
  };
  std::vector<Instance> instances;
  for (std::size_t i = 0; i < real.size(); ++i) {
    if (real[i].op.kind != model::OpKind::kMatMul) continue;
    std::uint64_t n = 0;
    const std::size_t e = heterollm::sibling_end(real, i, n);
    instances.push_back({i, e, DecisionKey{decode, real[i].op.m, real[i].op.k, n, decode ? 0 : padded[i].op.m}});
    i = e - 1;
  }
  // Nothing left to decide (a later request of a workload, a decode step planned again).
  if (std::all_of(instances.begin(), instances.end(), [&](const Instance& g) { return decisions_.count(g.key) > 0; })) return;
  if (!profiler_) profiler_ = std::make_unique<heterollm::PartitionProfiler>(soc, m);

  // The step: kernels as the GPU runs them alone, each distinct group (shape) once in `groups`
  // with its ops' output columns (a GPU part submits one kernel per op it has columns of).
  heterollm::StepContext step;
  struct Group {
    DecisionKey key;
    std::vector<std::uint64_t> widths;
    heterollm::Partition chosen;
    bool fixed = false;  // decided before this step (a cached decision is not revisited)
  };
  std::vector<Group> groups;
  std::map<DecisionKey, std::uint32_t> index;
  // A softmax lowers as the middle of its layer's attention kernel, shaped by its attn_scores op
  // (as the executor lowers it).
  std::map<std::uint32_t, kernels::AttentionShape> attention;
  for (const auto& g : real) {
    if (g.op.kind == model::OpKind::kAttnScores) attention.emplace(g.layer, runtime::attention_shape_of(g.op, m));
  }
  auto next = instances.begin();
  for (std::size_t i = 0; i < real.size();) {
    if (next != instances.end() && next->begin == i) {
      const auto [it, added] = index.emplace(next->key, static_cast<std::uint32_t>(groups.size()));
      if (added) {
        Group g{next->key, {}, {}, false};
        for (std::size_t o = next->begin; o < next->end; ++o) g.widths.push_back(real[o].op.n);
        groups.push_back(std::move(g));
      }
      step.add_group(it->second);
      i = next->end;
      ++next;
      continue;
    }
    const model::GraphOp& g = real[i++];
    const auto it = attention.find(g.layer);
    const kernels::AttentionShape* shape = g.op.kind == model::OpKind::kSoftmax && it != attention.end() ? &it->second : nullptr;
    for (const Tick t : profiler_->gpu_queue_times(g.op, shape)) step.add_kernel(t);
  }
  step.add_host_wait();  // the sampler reads the last kernel's output

  // DRAM's bandwidth for two masters streaming at once (the GPU part and the NPU part).
  const auto& eff = soc.dram.concurrency_efficiency;
  step.set_shared_bandwidth(soc.dram.peak_bandwidth * (eff.empty() ? 1.0 : eff[std::min<std::size_t>(1, eff.size() - 1)]));

  const Tick submit = soc.gpu.submit;
  const auto cost_of = [&](const heterollm::Partition& c, const Group& g) {
    heterollm::GroupCost cost;
    if (c.uses_gpu()) {
      // A profiled GPU part holds one submission. A row cut gives the GPU the last gpu_cols of
      // the concatenated columns: one kernel per op it reaches.
      cost.gpu = c.t_gpu - std::min(c.t_gpu, submit);
      const bool row_cut = c.kind == heterollm::CutKind::kRow || c.kind == heterollm::CutKind::kHybrid;
      std::uint64_t begin = 0;
      for (const auto w : g.widths) {
        if (!row_cut || !c.uses_npu() || begin + w > c.npu_cols) ++cost.submissions;
        begin += w;
      }
    }
    if (c.uses_npu()) {
      cost.npu = true;
      // The graph call as the NPU runs it (its fixed cost and a dispatch per node); a part
      // predicted below it (the regression tree) takes at least the call.
      cost.npu_call = profiler_->npu_call(c.npu_pieces.front(), c.k, c.npu_cols);
      cost.npu_time = std::max(c.t_npu, cost.npu_call);
    }
    if (c.uses_gpu() && c.uses_npu() && !c.bounded_only) {  // (a bound's replay does not share)
      const auto bytes = profiler_->bytes(c);
      cost.gpu_bytes = bytes.gpu, cost.npu_bytes = bytes.npu, cost.gpu_rate = bytes.gpu_rate, cost.npu_rate = bytes.npu_rate;
    }
    return cost;
  };
  // Start from each group's best alone (the paper's choice), then improve one group at a time
  // against the others' current choices (coordinate descent): a choice is replaced only by one
  // whose step ends strictly earlier, so the step's time falls with every change and the passes
  // end. Each group's choice is then the best in its step given the others'. Two groups' splits
  // can hold each other in place (qkv's and gate/up's on the 8 Gen 3 with gpu.submit=0: either
  // alone back on the GPU lengthens the step, both 7% shorter), so the descent runs a second time
  // from every undecided group whole on the GPU (the home's own plan) and the shorter step wins.
  std::vector<heterollm::GroupCost> costs(groups.size());
  heterollm::SolverParams alone;  // the paper's T_total of the parts' times alone, as solve_group's
  alone.sync = soc.cpu.poll_interval + soc.gpu.submit;
  std::vector<heterollm::Partition> on_gpu(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (const auto d = decisions_.find(groups[g].key); d != decisions_.end()) {
      groups[g].chosen = d->second;
      groups[g].fixed = true;
    } else {
      // The paper's choice, its parts then timed alone as the step costs them.
      groups[g].chosen = solve_group(soc, m, groups[g].key, nullptr, false);
      heterollm::set_times(groups[g].chosen, step_part_times(groups[g].chosen), alone);
      heterollm::Partition& c = on_gpu[g];
      const auto [is_decode, rows, k, n, npu_rows] = groups[g].key;
      c.kind = heterollm::CutKind::kGpuOnly;
      c.m = rows, c.k = k, c.n = n, c.gpu_rows = rows, c.gpu_cols = n;
      heterollm::set_times(c, step_part_times(c), alone);
    }
    costs[g] = cost_of(groups[g].chosen, groups[g]);
  }
  // Group g's candidates in the step, the others as chosen.
  // (What precedes g's first instance is replayed once: it does not read g's cost.)
  const auto in_step_of = [&](std::size_t g) -> StepCost {
    const auto group = static_cast<std::uint32_t>(g);
    const heterollm::StepContext::Replay before = step.before(group, costs, submit, true);
    return [&, g, before](const heterollm::Partition& c) {
      const heterollm::GroupCost kept = costs[g];
      costs[g] = cost_of(c, groups[g]);
      // A bound's times replayed without sharing from where the step with sharing stands before
      // g's first instance (the same for every candidate): a lower bound of the step with
      // sharing from there (step_context.h), and as tight as the step before g allows (the LM
      // head's candidates, bounded by a whole step without sharing, 77 ms against its 92 ms,
      // were all profiled; now most are not).
      const bool sharing = !c.bounded_only;
      const Tick t = step.time(costs, submit, sharing, before);
      costs[g] = kept;
      return t;
    };
  };
  // Group g's search reads only the others' costs (in_step_of replaces g's own), so its result
  // is kept by them: a descent's last pass, which confirms that no group improves, and the
  // restarts and kicks below, which come back to states searched before, ask the same searches
  // again (llama-3-8b's decode step: about half of them).
  std::map<std::vector<std::uint64_t>, heterollm::Partition> searched;
  const auto search = [&](std::size_t g) {
    std::vector<std::uint64_t> state{g};
    state.reserve(1 + 9 * costs.size());
    for (std::size_t o = 0; o < costs.size(); ++o) {
      if (o == g) continue;
      // Every field (a field added to GroupCost fails to compile here until it is in the state).
      const auto& [gpu, submissions, npu, npu_time, npu_call, gpu_bytes, npu_bytes, gpu_rate, npu_rate] = costs[o];
      state.insert(state.end(), {gpu, submissions, npu ? 1u : 0u, npu_time, npu_call, std::bit_cast<std::uint64_t>(gpu_bytes),
                                 std::bit_cast<std::uint64_t>(npu_bytes), std::bit_cast<std::uint64_t>(gpu_rate),
                                 std::bit_cast<std::uint64_t>(npu_rate)});
    }
    if (const auto it = searched.find(state); it != searched.end()) return it->second;
    const StepCost in_step = in_step_of(g);
    heterollm::Partition best = solve_group(soc, m, groups[g].key, &in_step, false);
    searched.emplace(std::move(state), best);
    return best;
  };
  const auto descend = [&] {
    Tick now = step.time(costs, submit);
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        if (groups[g].fixed) continue;
        heterollm::Partition best = search(g);
        if (best.t_total >= now) continue;
        now = best.t_total;
        groups[g].chosen = std::move(best);
        costs[g] = cost_of(groups[g].chosen, groups[g]);
        changed = true;
      }
    }
    return now;
  };
  // A search from another start keeps its result only if its step ends strictly earlier; these
  // save and restore every group's choice (and its cost, which follows from the choice).
  std::vector<heterollm::Partition> saved(groups.size());
  const auto save = [&] {
    for (std::size_t g = 0; g < groups.size(); ++g) saved[g] = groups[g].chosen;
  };
  const auto restore = [&] {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      groups[g].chosen = std::move(saved[g]);
      costs[g] = cost_of(groups[g].chosen, groups[g]);
    }
  };
  const auto to_gpu = [&](std::size_t g) {
    groups[g].chosen = on_gpu[g];
    costs[g] = cost_of(groups[g].chosen, groups[g]);
  };
  const auto has_npu_part = [](const Group& g) { return !g.fixed && g.chosen.kind != heterollm::CutKind::kGpuOnly; };
  Tick now = descend();
  if (std::any_of(groups.begin(), groups.end(), has_npu_part)) {
    save();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!groups[g].fixed) to_gpu(g);
    }
    const Tick second = descend();
    if (second >= now) {  // (ties keep the paper's start)
      restore();
    } else {
      now = second;
    }
  }
  // Kicks: two splits can hold each other in place from either start (8 Elite llama-3-8b at 64
  // tokens: qkv's split kept gate/up's, 79.5 ms/token; qkv on the GPU and gate/up giving the NPU
  // more columns decodes at 76.7). Each group with an NPU part
  // in turn goes whole to the GPU and is held there while the others respond, then everything
  // descends again; a kick is kept only when the step ends strictly earlier, so kicks end too.
  for (bool kicked = true; kicked;) {
    kicked = false;
    for (std::size_t k = 0; k < groups.size(); ++k) {
      if (!has_npu_part(groups[k])) continue;
      save();
      to_gpu(k);
      groups[k].fixed = true;
      descend();
      groups[k].fixed = false;
      const Tick kick = descend();
      if (kick < now) {
        now = kick;
        kicked = true;
      } else {
        restore();
      }
    }
  }
  for (auto& g : groups) {
    if (g.fixed) continue;
    // Recorded with the step's final time (an early choice was made against a step that later
    // changes moved).
    g.chosen.in_step = true;
    g.chosen.t_total = now;
    decisions_.emplace(g.key, g.chosen);
  }
  if (!options_.explain) return;
  // Each decision's line, the search run once more in the final step for its single-unit times.
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].fixed) continue;
    const StepCost in_step = in_step_of(g);
    solve_group(soc, m, groups[g].key, &in_step, true, &groups[g].chosen);
  }
}

}  // namespace socsim::systems
