// cpu-only: the papers' CPU baseline. Every op on the CPU, K-quant weights through INT8 dot
// products, float activations; no other unit, so no synchronization. cpu_only.engine picks the
// kernel library: llamacpp (default: the baseline the papers ran, kernels/llamacpp/) or optimized
// (the SoC file's sustained GEMM rates: llm.npu's own CPU kernels).
#include "sim/systems/baselines/cpu_only.h"

#include <algorithm>
#include <optional>

#include "kernels/llamacpp/vec_dot_costs.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/systems/plan_builder.h"

namespace socsim::systems {

void CpuOnly::configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig&) {
  std::uint32_t total = 0, big = 0;
  for (std::size_t i = 0; i < soc.cpu.clusters.size(); ++i) {
    total += soc.cpu.clusters[i].cores;
    if (hw::core_class(soc.cpu, i) != hw::CoreClass::kLittle) big += soc.cpu.clusters[i].cores;
  }
  std::optional<config::Section> o = options.optional_child("cpu_only");
  engine_ = runtime::CpuEngine::kLlamaCpp;
  if (o && o->has("engine")) engine_ = *runtime::parse_cpu_engine(o->choice("engine", {"llamacpp", "optimized"}));
  // llamacpp: llama.cpp's default -t of early 2024, get_num_physical_cores(), fell back on
  // Android/Linux (its sysfs path was misspelled until fcd84a0f, 2024-05-04) to
  // hardware_concurrency() <= 4 ? all : half: 4 on an 8-core phone, which the scheduler places on
  // the fastest cores. optimized: every core but the little ones.
  threads_ = engine_ == runtime::CpuEngine::kLlamaCpp ? (total <= 4 ? total : total / 2) : big;
  if (o && o->has("threads")) threads_ = static_cast<std::uint32_t>(o->integer("threads", 1, total));  // the CPU's cores
  if (engine_ == runtime::CpuEngine::kLlamaCpp) {
    // Its kernels are costed by their instruction mix: the cores must say how many vector pipes
    // they have.
    for (const auto& c : soc.cpu.clusters) {
      if (c.simd_pipes == 0) {
        throw hw::HardwareLimitError("cpu.clusters." + c.name + ".simd_pipes",
                                     "cpu_only.engine=llamacpp costs llama.cpp's kernels by their vector micro-ops: the SoC "
                                     "file must give each CPU cluster's 128-bit SIMD pipe count (or use cpu_only.engine=optimized)");
      }
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
  b.set_cpu_engine(engine_);
  // llama.cpp decodes the prompt n_batch tokens at a time (kernels/llamacpp/vec_dot_costs.h).
  const std::uint64_t chunk = engine_ == runtime::CpuEngine::kLlamaCpp ? kernels::llamacpp::kBatchTokens : 0;
  const auto prefill = model::prefill_graph(m, {r.prompt, chunk, r.batch, false, false}, false);
  build_prefill_decode(plan, b, m, prefill, r);
  plan.info["cpu_engine"] = runtime::cpu_engine_name(engine_);
  plan.info["cpu_threads"] = threads_;
  return plan;
}

}  // namespace socsim::systems
