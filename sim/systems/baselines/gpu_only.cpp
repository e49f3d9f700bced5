#include "sim/systems/baselines/gpu_only.h"

#include "sim/systems/plan_builder.h"

namespace socsim::systems {

runtime::Plan GpuOnly::plan(const hw::SocSpec&, const model::ModelConfig& m, const RequestShape& r) {
  runtime::Plan plan;
  SequentialPlanBuilder b([](const model::GraphOp&) { return Placement{kernels::Unit::kGpu, runtime::Precision::kW4A16, 1}; },
                          [](const model::GraphOp&) { return std::string(); });
  build_prefill_decode(plan, b, m, model::prefill_graph(m, {r.prompt, 0, r.batch, false, false}, false), r);
  return plan;
}

}  // namespace socsim::systems
