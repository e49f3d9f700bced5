#include "sim/systems/baselines/npu_naive.h"

#include <algorithm>

#include "sim/config/config_error.h"
#include "sim/systems/plan_builder.h"

namespace socsim::systems {

void check_npu_fits(const hw::SocSpec& soc, const model::ModelConfig& m, double bits_per_weight) {
  if (!soc.has_npu) {
    throw config::ConfigError({soc.source_file, 0, 0}, "npu", "this SoC has no NPU (no `npu:` section); try gpu-only or cpu-only");
  }
  const double bytes = static_cast<double>(m.layers * m.params_per_layer() + m.lm_head_params()) * bits_per_weight / 8.0;
  if (bytes > static_cast<double>(soc.npu.address_space_bytes)) {
    throw config::ConfigError({"command line", 0, 0}, "--model",
                              m.id + "'s NPU weights (" + std::to_string(static_cast<std::uint64_t>(bytes)) +
                                  " B) exceed the NPU's address space of " + std::to_string(soc.npu.address_space_bytes) +
                                  " B (npu.address_space): it cannot run on this NPU");
  }
}

void NpuNaive::configure(config::Section&, const hw::SocSpec& soc, const model::ModelConfig& m) {
  check_npu_fits(soc, m, weight_bits());
  // Its CPU ops on 4 threads, or every core of a smaller CPU (a one-core SoC ended in an internal
  // error: "4 threads requested, the CPU has 1 cores").
  std::uint32_t cores = 0;
  for (const auto& c : soc.cpu.clusters) cores += c.cores;
  cpu_threads_ = std::clamp<std::uint32_t>(cores, 1, 4);
}

runtime::Plan NpuNaive::plan(const hw::SocSpec&, const model::ModelConfig& m, const RequestShape& r) {
  runtime::Plan plan;
  const std::uint32_t threads = cpu_threads_;
  const std::uint64_t prompt = r.prompt;
  SequentialPlanBuilder b(
      [threads](const model::GraphOp& g) {
        if (g.phase == model::Phase::kPrefill && g.op.kind == model::OpKind::kMatMul) {
          return Placement{kernels::Unit::kNpu, runtime::Precision::kW8A8Group, 1};
        }
        // Float ops, and the whole decode, on the CPU with the INT8 weights.
        return Placement{kernels::Unit::kCpu,
                         g.op.kind == model::OpKind::kMatMul ? runtime::Precision::kW8A8 : runtime::Precision::kFp32, threads};
      },
      [prompt](const model::GraphOp& g) {
        // One graph per layer position and prompt length: a new length means new graphs.
        return "npu-naive/P" + std::to_string(prompt) + "/L" + std::to_string(g.layer) + "/" + g.op.name;
      });
  build_prefill_decode(plan, b, m, model::prefill_graph(m, {r.prompt, 0, r.batch, false, false}, false), r);
  return plan;
}

}  // namespace socsim::systems
