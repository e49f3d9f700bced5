#pragma once
// Builds a runtime Plan from model ops placed one by one: consecutive ops with the same placement
// become one job (one NPU graph call, one run of GPU kernels, one run of CPU tasks), each job
// waiting for the one before it. Strategies with more structure (pipelines, partitions) build
// their jobs themselves.
#include <functional>
#include <string>
#include <vector>

#include "sim/model/graph_builder.h"
#include "sim/runtime/job.h"
#include "sim/systems/system.h"

namespace socsim::systems {

struct Placement {
  kernels::Unit unit = kernels::Unit::kCpu;
  runtime::Precision precision = runtime::Precision::kFp32;
  std::uint32_t cpu_threads = 1;
  bool operator==(const Placement&) const = default;
};

using Placer = std::function<Placement(const model::GraphOp&)>;
// Names the static graph an NPU job executes (given its first op); "" = no graph call.
using GraphNamer = std::function<std::string(const model::GraphOp&)>;

class SequentialPlanBuilder {
 public:
  SequentialPlanBuilder(Placer placer, GraphNamer namer) : placer_(std::move(placer)), namer_(std::move(namer)) {}
  // Appends ops; a job is also cut where the phase or step changes. Returns the last job's index.
  std::uint32_t append(runtime::Plan& plan, const std::vector<model::GraphOp>& ops);
  // How many jobs append() makes of `ops` (for a plan that reserves its jobs before building).
  std::size_t jobs_for(const std::vector<model::GraphOp>& ops) const;
  // Appends one CPU job of a single op (sampling the next token from the logits, on the host).
  std::uint32_t append_host_op(runtime::Plan& plan, model::OpDesc op, model::Phase phase, std::uint64_t step);
  // Also cut a job where the layer changes: one graph per decoder layer, shared by every layer of
  // that shape (the graph namer gives them one name), instead of one graph per forward pass.
  void cut_at_layers() { cut_at_layers_ = true; }
  // The kernel library of the CPU jobs appended from now on (the host's sampling op excepted).
  void set_cpu_engine(runtime::CpuEngine e) { cpu_engine_ = e; }
  // The next job appended waits for `job` (a job the strategy built itself).
  void continue_after(std::uint32_t job) {
    has_last_ = true;
    last_ = job;
  }

 private:
  std::vector<Placement> placements(const std::vector<model::GraphOp>& ops) const;
  // Whether op i joins the job op i - 1 is in.
  bool joins(const std::vector<model::GraphOp>& ops, const std::vector<Placement>& places, std::size_t i) const;
  Placer placer_;
  GraphNamer namer_;
  bool has_last_ = false;
  bool cut_at_layers_ = false;
  runtime::CpuEngine cpu_engine_ = runtime::CpuEngine::kOptimized;
  std::uint32_t last_ = 0;
};

// The host's sampling op after the logits (argmax over the vocabulary).
model::OpDesc sample_op(const model::ModelConfig& m, std::uint64_t sequences);

// Adds prefill and decode to the plan with one builder, marking prefill_end and each decode
// step's end: the common shape of single-request systems. A decode window (r.decode_only) adds
// its decode steps only.
void build_prefill_decode(runtime::Plan& plan, SequentialPlanBuilder& b, const model::ModelConfig& m,
                          const std::vector<model::GraphOp>& prefill, const RequestShape& r);
// The same with the batch shrinking as samples stop: decode step s runs active[s] sequences (each
// in [1, r.batch], not increasing), active.size() <= r.decode steps in all. Throws
// std::logic_error otherwise.
void build_prefill_decode(runtime::Plan& plan, SequentialPlanBuilder& b, const model::ModelConfig& m,
                          const std::vector<model::GraphOp>& prefill, const RequestShape& r, const std::vector<std::uint64_t>& active);

}  // namespace socsim::systems
