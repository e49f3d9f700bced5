#include "sim/cli/host_facts.h"

#include <sched.h>

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
  // The CPUs this process may run on (taskset, a cgroup's cpuset), where the system says.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) cpu.logical_cpus = static_cast<std::uint32_t>(CPU_COUNT(&set));
  std::ifstream in(cpuinfo_path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto first = line.find_first_not_of(" \t\r", colon + 1);
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    cpu.model = line.substr(first, last - first + 1);
    break;
  }
  return cpu;
}

}  // namespace socsim::cli
