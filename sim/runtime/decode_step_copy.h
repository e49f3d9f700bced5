#pragma once
// A decode step's jobs copied from an earlier step's instead of planned again. Every decode step
// of a request runs the same ops; only the attention ops' context grows by one key per step. A
// plan of a long decode spent most of its planning re-deriving the same placement, partitions and
// job names for each step (HeteroLLM: 64 steps of llama-3-8b, 19,000 jobs, about 15 ms, as much as
// simulating them); copying the template step's jobs and updating what the step changes gives
// the same plan (the same jobs, names, dependencies and op shapes) for the cost of a copy.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/graph_builder.h"
#include "sim/runtime/job.h"

namespace socsim::runtime {

// Jobs [begin, end) of a plan, the jobs of decode step `from` planned from `from_graph`
// (decode_step_graph(m, prompt, from, b)), as the template of later steps. append() adds step
// `to`'s jobs as a copy given `to_graph` (decode_step_graph(m, prompt, to, b)):
// - an op of the graph whose shape differs between the two graphs (attention's context) takes
//   `to_graph`'s shape; every op's step becomes `to`;
// - job names "decode<from>.<rest>" become "decode<to>.<rest>";
// - a dependency inside [begin, end) points to the copy of its job; one on job begin - 1 (what
//   step `from` waited for: the previous step's last job, or the prefill's) points to the job
//   before the copy (the plan's last job when the copy begins);
// - a template that begins the plan (begin 0: a decode window's first step, whose jobs without
//   dependencies follow the previous window's last job, Executor::continue_after): a job without
//   dependencies waits in its copies for the job before the copy, as in a step planned after
//   another;
// - a copy that begins the plan it is appended to (a later window's first step: the template is
//   kept, so it may come from an earlier plan of the request): what the template waited for
//   outside it is not in that plan, so its jobs wait for nothing there (they follow the previous
//   window, as the step planned in that window would).
// The template is not copyable (ok() false: the caller plans every step itself) when a job
// depends on another earlier job, an op is of another step or phase, or a name of another form.
// append() returns nothing, the plan unchanged, when the step changes what a copy cannot
// recompute: the graphs not aligned op by op, the shape of an op the template altered (a part of
// a partitioned op: `<op>` keeping its name at other rows or columns, `<op>.<suffix>`), or of an
// op in a job with a named static graph or a profiled estimate (both follow the shapes). Ops
// that are not the graph's or a part of one (a sampler) must not depend on the step, and nor may
// a job's other fields (threads, lane, storage reads, cluster) depend on its ops' shapes: they
// are copied as they are (the caller's contract).
class DecodeStepCopier {
 public:
  DecodeStepCopier(const Plan& plan, std::uint32_t begin, std::uint32_t end, std::uint64_t from, const std::vector<model::GraphOp>& from_graph);
  bool ok() const { return ok_; }
  // The copy's first job index.
  std::optional<std::uint32_t> append(Plan& plan, std::uint64_t to, const std::vector<model::GraphOp>& to_graph) const;

 private:
  struct OpRef {
    std::uint32_t job = 0, op = 0;  // offset in the template, index in the job's ops
    std::size_t graph = 0;          // the graph op it is (exact) or a part of (!exact)
    bool exact = true;
  };
  std::uint32_t begin_ = 0, end_ = 0;
  std::uint64_t from_ = 0;
  std::vector<model::GraphOp> from_graph_;
  std::vector<Job> template_;  // the template's jobs (kept: copies may go into later plans), unnamed:
  std::vector<std::string> names_;  // their names after the prefix
  std::vector<OpRef> refs_;
  std::string prefix_;  // "decode<from>."
  bool ok_ = false;
};

}  // namespace socsim::runtime
