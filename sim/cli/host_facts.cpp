#include "sim/cli/host_facts.h"

#include <fstream>
#include <thread>

namespace socsim::cli {

std::optional<double> host_load(const std::string& loadavg_path) {
  std::ifstream in(loadavg_path);
  double load = 0;
  if (in >> load) return load;
  return std::nullopt;
}

HostCpu host_cpu(const std::string& cpuinfo_path) {
  HostCpu cpu{"unknown", std::thread::hardware_concurrency()};
  std::ifstream in(cpuinfo_path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto first = line.find_first_not_of(" \t", colon + 1);
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    cpu.model = line.substr(first, last - first + 1);
    break;
  }
  return cpu;
}

}  // namespace socsim::cli
