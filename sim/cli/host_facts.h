#pragma once
// What a wall-clock figure of `socsim bench` depends on besides socsim: the host's load and its
// processor. The bench's bars are ratios of such figures (a whole run's event rate against the
// bare engine's, functional mode against the host's sgemm), and the ratios move with the processor:
// the engine's event loop gained 40% on an AMD EPYC over an Intel Xeon where whole runs gained 4%.
#include <cstdint>
#include <optional>
#include <string>

namespace socsim::cli {

// The 1-minute load average (/proc/loadavg), if the system has one.
std::optional<double> host_load(const std::string& loadavg_path = "/proc/loadavg");

struct HostCpu {
  std::string model;              // the first "model name" of /proc/cpuinfo; "unknown" without one
  std::uint32_t logical_cpus = 0;  // the CPUs this process may run on (affinity), else the host's; 0: not known
};
HostCpu host_cpu(const std::string& cpuinfo_path = "/proc/cpuinfo");

}  // namespace socsim::cli
