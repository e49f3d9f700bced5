#include "sim/systems/llm_npu/cpu_decode.h"

#include "sim/systems/plan_builder.h"

namespace socsim::systems::llm_npu {

void append_cpu_decode(runtime::Plan& plan, const Options& o, const model::ModelConfig& m, const RequestShape& r,
                       std::uint32_t prefill_last) {
  const std::uint32_t threads = o.cpu_threads;
  SequentialPlanBuilder b(
      [threads](const model::GraphOp& g) {
        return Placement{kernels::Unit::kCpu,
                         g.op.kind == model::OpKind::kMatMul ? runtime::Precision::kW8A8 : runtime::Precision::kFp32, threads};
      },
      [](const model::GraphOp&) { return std::string(); });
  if (!r.decode_only) {
    b.continue_after(prefill_last);
    plan.prefill_end = b.append_host_op(plan, sample_op(m, r.batch), model::Phase::kPrefill, 0);
  }
  const std::size_t decode_from = plan.jobs.size();
  for (std::uint64_t s = r.first_step; s < r.first_step + r.decode; ++s) {
    b.append(plan, model::decode_step_graph(m, r.prompt, s, r.batch));
    plan.decode_step_end.push_back(b.append_host_op(plan, sample_op(m, r.batch), model::Phase::kDecode, s));
  }
  for (std::size_t j = decode_from; j < plan.jobs.size() && !o.minmax_scale; ++j) {
    plan.jobs[j].outliers = runtime::OutlierHandling::kShadow;
    plan.jobs[j].outlier_channels = static_cast<std::uint32_t>(o.outlier_channels);
  }
}

}  // namespace socsim::systems::llm_npu
