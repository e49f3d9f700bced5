// What `socsim bench` says of its host (sim/cli/host_facts.h): the processor's name as
// /proc/cpuinfo spells it, the load average, and "unknown" or nothing where a file says neither.
#include "sim/cli/host_facts.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace socsim::cli {
namespace {

std::string written(const std::string& name, const std::string& text) {
  // (The process id in the name: test binaries of two builds may run at once.)
  const auto path = std::filesystem::temp_directory_path() / ("socsim_host_facts_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(HostFacts, TheFirstModelNameTrimmed) {
  const auto path = written("cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9R14  \r\n"
                                       "processor\t: 1\nmodel name\t: Another\n");
  const HostCpu cpu = host_cpu(path);
  EXPECT_EQ(cpu.model, "AMD EPYC 9R14");
  std::filesystem::remove(path);
}

TEST(HostFacts, UnknownWithoutAModelName) {
  // An arm64 /proc/cpuinfo has no "model name" line; a missing file, an empty value.
  const auto path = written("cpuinfo_arm", "processor\t: 0\nBogoMIPS\t: 50.00\nmodel name\t:   \r\n");
  EXPECT_EQ(host_cpu(path).model, "unknown");
  EXPECT_EQ(host_cpu(path + ".missing").model, "unknown");
  std::filesystem::remove(path);
}

TEST(HostFacts, TheCpusThisProcessMayUse) {
  // Within what the host has: taskset or a cgroup's cpuset gives fewer.
  const HostCpu cpu = host_cpu();
  EXPECT_GE(cpu.logical_cpus, 1u);
  if (std::thread::hardware_concurrency() > 0) {
    EXPECT_LE(cpu.logical_cpus, std::thread::hardware_concurrency());
  }
}

TEST(HostFacts, LoadAverageOrNothing) {
  const auto path = written("loadavg", "0.71 1.78 1.52 2/301 4242\n");
  ASSERT_TRUE(host_load(path).has_value());
  EXPECT_DOUBLE_EQ(*host_load(path), 0.71);
  EXPECT_FALSE(host_load(path + ".missing").has_value());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace socsim::cli
