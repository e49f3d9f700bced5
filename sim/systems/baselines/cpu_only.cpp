// cpu-only: llama.cpp-like. Every op on the CPU's big and mid cores, Q4_0 weights run through
// INT8 dot products, float activations; no other unit, so no synchronization at all.
#include "sim/systems/baselines/cpu_only.h"

#include "sim/systems/plan_builder.h"

namespace socsim::systems {

void CpuOnly::configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig&) {
  // Default: every core but the little ones (llama.cpp's usual -t for phones).
  std::uint32_t big = 0;
  for (const auto& c : soc.cpu.clusters) {
    if (c.name != "little") big += c.cores;
  }
  threads_ = big;
  if (auto o = options.optional_child("cpu_only")) {
    threads_ = static_cast<std::uint32_t>(o->integer_or("threads", big));
    std::uint32_t total = 0;
    for (const auto& c : soc.cpu.clusters) total += c.cores;
    if (threads_ < 1 || threads_ > total) {
      throw config::ConfigError(o->location_of("threads"), "cpu_only.threads",
                                "must be in [1, " + std::to_string(total) + "] (the CPU's cores), got " + std::to_string(threads_));
    }
  }
}

runtime::Plan CpuOnly::plan(const hw::SocSpec&, const model::ModelConfig& m, const RequestShape& r) {
  runtime::Plan plan;
  const Placement place{kernels::Unit::kCpu, runtime::Precision::kW4A16, threads_};
  SequentialPlanBuilder b([&](const model::GraphOp& g) {
    Placement p = place;
    if (g.op.kind != model::OpKind::kMatMul) p.precision = runtime::Precision::kFp32;
    return p;
  }, [](const model::GraphOp&) { return std::string(); });
  const auto prefill = model::prefill_graph(m, {r.prompt, 0, r.batch, false, false}, false);
  build_prefill_decode(plan, b, m, prefill, r);
  return plan;
}

}  // namespace socsim::systems
