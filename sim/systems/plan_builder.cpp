#include "sim/systems/plan_builder.h"

#include <stdexcept>
#include <string>

#include "sim/runtime/job_name.h"

namespace socsim::systems {

std::vector<Placement> SequentialPlanBuilder::placements(const std::vector<model::GraphOp>& ops) const {
  std::vector<Placement> places;
  places.reserve(ops.size());
  for (const auto& g : ops) places.push_back(placer_(g));
  return places;
}

bool SequentialPlanBuilder::joins(const std::vector<model::GraphOp>& ops, const std::vector<Placement>& places, std::size_t i) const {
  if (i == 0) return false;
  const model::GraphOp &g = ops[i], &prev = ops[i - 1];
  return places[i] == places[i - 1] && prev.phase == g.phase && prev.step == g.step && (!cut_at_layers_ || prev.layer == g.layer);
}

std::size_t SequentialPlanBuilder::jobs_for(const std::vector<model::GraphOp>& ops) const {
  const std::vector<Placement> places = placements(ops);
  std::size_t jobs = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) jobs += joins(ops, places, i) ? 0 : 1;
  return jobs;
}

std::uint32_t SequentialPlanBuilder::append(runtime::Plan& plan, const std::vector<model::GraphOp>& ops) {
  // Each op's placement first, so that each job's ops are reserved whole (grown op by op, a job
  // of a dozen ops was reallocated four times, moving its ops each time).
  const std::vector<Placement> places = placements(ops);
  for (std::size_t i = 0; i < ops.size();) {
    std::size_t end = i + 1;
    while (end < ops.size() && joins(ops, places, end)) ++end;
    const model::GraphOp& g = ops[i];
    const Placement& p = places[i];
    runtime::Job j;
    j.unit = p.unit;
    j.precision = p.precision;
    j.cpu_threads = p.cpu_threads;
    if (p.unit == kernels::Unit::kCpu) j.cpu_engine = cpu_engine_;
    j.name = runtime::op_job_name(g);
    if (p.unit == kernels::Unit::kNpu) j.npu_graph = namer_(g);
    if (has_last_) j.deps.push_back(last_);
    j.ops.reserve(end - i);
    j.ops.insert(j.ops.end(), ops.begin() + static_cast<std::ptrdiff_t>(i), ops.begin() + static_cast<std::ptrdiff_t>(end));
    last_ = plan.add(std::move(j));
    has_last_ = true;
    i = end;
  }
  return last_;
}

std::uint32_t SequentialPlanBuilder::append_host_op(runtime::Plan& plan, model::OpDesc op, model::Phase phase,
                                                    std::uint64_t step) {
  runtime::Job j;
  j.unit = kernels::Unit::kCpu;
  j.precision = runtime::Precision::kFp32;
  j.cpu_threads = 1;
  j.name = std::string(phase == model::Phase::kPrefill ? "prefill" : "decode") + std::to_string(step) + ".sample";
  j.ops.push_back({std::move(op), phase, 0, step});
  if (has_last_) j.deps.push_back(last_);
  last_ = plan.add(std::move(j));
  has_last_ = true;
  return last_;
}

model::OpDesc sample_op(const model::ModelConfig& m, std::uint64_t sequences) {
  model::OpDesc op{"sample", model::OpKind::kElementwise};
  op.elements = m.vocab * sequences;  // one pass over the logits (argmax / top-p)
  return op;
}

void build_prefill_decode(runtime::Plan& plan, SequentialPlanBuilder& b, const model::ModelConfig& m,
                          const std::vector<model::GraphOp>& prefill, const RequestShape& r) {
  if (!r.decode_only) {
    b.append(plan, prefill);
    plan.prefill_end = b.append_host_op(plan, sample_op(m, r.batch), model::Phase::kPrefill, 0);
  }
  // The prompt's logits give the first token (TTFT); each of the `decode` steps then runs one
  // forward pass over the last token and samples the next.
  for (std::uint64_t s = r.first_step; s < r.first_step + r.decode; ++s) {
    b.append(plan, model::decode_step_graph(m, r.prompt, s, r.batch));
    plan.decode_step_end.push_back(b.append_host_op(plan, sample_op(m, r.batch), model::Phase::kDecode, s));
  }
}

void build_prefill_decode(runtime::Plan& plan, SequentialPlanBuilder& b, const model::ModelConfig& m,
                          const std::vector<model::GraphOp>& prefill, const RequestShape& r, const std::vector<std::uint64_t>& active) {
  if (r.decode_only || r.first_step != 0) throw std::logic_error("a shrinking batch is planned whole, not in decode windows");
  if (active.size() > r.decode) {
    throw std::logic_error(std::to_string(active.size()) + " decode steps of a shrinking batch for a request of " + std::to_string(r.decode));
  }
  for (std::size_t s = 0; s < active.size(); ++s) {
    if (active[s] == 0 || active[s] > r.batch || (s > 0 && active[s] > active[s - 1])) {
      throw std::logic_error("decode step " + std::to_string(s) + " runs " + std::to_string(active[s]) + " of " +
                             std::to_string(r.batch) + " sequences: not a batch that only shrinks");
    }
  }
  b.append(plan, prefill);
  plan.prefill_end = b.append_host_op(plan, sample_op(m, r.batch), model::Phase::kPrefill, 0);
  // A finished sample leaves the batch: the rows still sampling decode the next token. Every
  // sequence started together, so they share one context length per step.
  for (std::uint64_t s = 0; s < active.size(); ++s) {
    b.append(plan, model::decode_step_graph(m, r.prompt, s, active[s]));
    plan.decode_step_end.push_back(b.append_host_op(plan, sample_op(m, active[s]), model::Phase::kDecode, s));
  }
}

}  // namespace socsim::systems
