// `socsim validate`: placeholder until the claims runner lands.
#include <iostream>

#include "sim/cli/command.h"

namespace socsim::cli {

int validate_command(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << "usage: socsim validate --claims FILE.yaml [--json FILE]\n";
      return 0;
    }
  }
  std::cerr << "error: validate: not built yet\n";
  return 1;
}

}  // namespace socsim::cli
