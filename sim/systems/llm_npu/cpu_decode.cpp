#include "sim/systems/llm_npu/cpu_decode.h"

#include "sim/systems/plan_builder.h"

namespace socsim::systems::llm_npu {

namespace {

SequentialPlanBuilder decode_builder(const Options& o) {
  const std::uint32_t threads = o.cpu_threads;
  return SequentialPlanBuilder(
      [threads](const model::GraphOp& g) {
        return Placement{kernels::Unit::kCpu,
                         g.op.kind == model::OpKind::kMatMul ? runtime::Precision::kW8A8 : runtime::Precision::kFp32, threads};
      },
      [](const model::GraphOp&) { return std::string(); });
}

}  // namespace

std::uint64_t cpu_decode_jobs(const Options& o, const model::ModelConfig& m, const RequestShape& r) {
  const std::uint64_t first_sample = r.decode_only ? 0 : 1;
  if (r.decode == 0) return first_sample;
  // Every step has the same ops but for its attention's KV length, so the same jobs, and a sample.
  const std::uint64_t per_step = decode_builder(o).jobs_for(model::decode_step_graph(m, r.prompt, r.first_step, r.batch)) + 1;
  return first_sample + r.decode * per_step;
}

void append_cpu_decode(runtime::Plan& plan, const Options& o, const model::ModelConfig& m, const RequestShape& r,
                       std::uint32_t prefill_last) {
  if (const auto need = plan.jobs.size() + cpu_decode_jobs(o, m, r); need <= runtime::kReservedJobsLimit) plan.jobs.reserve(need);
  SequentialPlanBuilder b = decode_builder(o);
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
