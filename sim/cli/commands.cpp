#include "sim/cli/command.h"

namespace socsim::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {"run", "simulate one LLM inference (prefill + decode) and report latency, energy, timeline", &run_command},
      {"microbench", "simulate one operator on one unit (matmul, qk, read, copy, graph-build, softmax, attention)", &microbench_command},
      {"bench", "measure the simulator's own speed: wall time of whole runs, engine events per second", &bench_command},
      {"serve", "simulate LLMS (LLM as a system service): context-switch latency of many apps' contexts over hours", &serve_command},
      {"validate", "run calibration/validation claims and compare with published numbers", &validate_command},
      {"calibrate", "a system's offline calibration (shadowattn: head and layer importance by ablation in functional mode) to a file", &calibrate_command},
      {"sweep", "run a grid of simulations (any --set key, soc, model, system, lengths) in parallel; CSV per run; shards + merge", &sweep_command},
  };
  return kCommands;
}

}  // namespace socsim::cli
