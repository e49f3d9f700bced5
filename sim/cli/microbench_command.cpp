// `socsim microbench`: one operator on one unit. The hardware models land with the hardware issue;
// until then the command parses and checks its inputs and says what is missing.
#include <iostream>
#include <stdexcept>

#include "sim/cli/command.h"
#include "sim/config/config_error.h"

namespace socsim::cli {

int microbench_command(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << "usage: socsim microbench --soc S --op matmul|qk|read|copy|graph-build --unit npu|gpu|cpu [...]\n";
      return 0;
    }
  }
  std::cerr << "error: microbench: the hardware unit models are not built yet (roadmap step 2)\n";
  return 1;
}

nlohmann::ordered_json microbench_to_json(const std::vector<std::string>&) {
  throw std::logic_error("microbench: the hardware unit models are not built yet");
}

}  // namespace socsim::cli
