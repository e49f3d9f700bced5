// Wall time of whole timing-mode runs: the simulator must answer "what if" questions in seconds
// (issue: llama-3-8b, prompt 1024 + decode 64 in under 1 s on one core).
#include <benchmark/benchmark.h>

#include "sim/config/config_tree.h"
#include "sim/runtime/simulate_run.h"

namespace socsim::runtime {
namespace {

void run_once(benchmark::State& state, const std::string& system, const std::string& model, std::uint64_t prompt,
              std::uint64_t decode) {
  const std::string root = SOCSIM_SOURCE_DIR;
  auto tree = config::ConfigTree::load_file(root + "/soc_configs/snapdragon-8gen3.yaml");
  RunRequest req;
  req.soc_id = "snapdragon-8gen3";
  req.soc = hw::parse_soc_spec(tree);
  req.model = model::load_model_config(root + "/models/" + model + ".json");
  req.system = system;
  req.prompt_tokens = prompt, req.decode_tokens = decode, req.batch = 1;
  auto sys = systems::SystemRegistry::builtin().make(system);
  auto section = tree.root();
  sys->configure(section, req.soc, req.model);
  for (auto _ : state) {
    report::TraceRecorder trace;
    benchmark::DoNotOptimize(simulate_run(req, *sys, trace));
  }
}

void BM_Llama3_8B_GpuOnly_1024_64(benchmark::State& s) { run_once(s, "gpu-only", "llama-3-8b", 1024, 64); }
void BM_Llama3_8B_CpuOnly_1024_64(benchmark::State& s) { run_once(s, "cpu-only", "llama-3-8b", 1024, 64); }
void BM_Qwen2_1_5B_NpuOnly_1024_64(benchmark::State& s) { run_once(s, "npu-only", "qwen2-1.5b", 1024, 64); }
BENCHMARK(BM_Llama3_8B_GpuOnly_1024_64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Llama3_8B_CpuOnly_1024_64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Qwen2_1_5B_NpuOnly_1024_64)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace socsim::runtime
