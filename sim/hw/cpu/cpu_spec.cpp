#include "sim/hw/cpu/cpu_spec.h"

#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>

#include "sim/config/config_error.h"

namespace socsim::hw {

using config::Quantity;

const CpuClusterSpec& CpuSpec::cluster(std::string_view name) const {
  for (const auto& c : clusters) {
    if (c.name == name) return c;
  }
  std::string known;
  for (const auto& c : clusters) known += (known.empty() ? "" : ", ") + c.name;
  throw std::out_of_range("no CPU cluster named '" + std::string(name) + "' (known: " + known + ")");
}

namespace {

double core_speed(const CpuClusterSpec& c) { return static_cast<double>(c.clock_hz) * c.fp32_flops_per_cycle; }

std::optional<CoreClass> named_class(const std::string& name) {
  if (name == "prime") return CoreClass::kPrime;
  if (name == "mid") return CoreClass::kMid;
  if (name == "little") return CoreClass::kLittle;
  return std::nullopt;
}

}  // namespace

CoreClass core_class(const CpuSpec& cpu, std::size_t cluster) {
  const auto& cs = cpu.clusters;
  if (cs.size() <= 1) return CoreClass::kPrime;
  if (std::all_of(cs.begin(), cs.end(), [](const CpuClusterSpec& c) { return named_class(c.name).has_value(); })) {
    return *named_class(cs[cluster].name);
  }
  // Rank: how many clusters come before this one (faster, or as fast and earlier in the file).
  std::size_t rank = 0;
  const double mine = core_speed(cs[cluster]);
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const double other = core_speed(cs[i]);
    if (other > mine || (other == mine && i < cluster)) ++rank;
  }
  if (rank == 0) return CoreClass::kPrime;
  if (cs.size() >= 3 && rank == cs.size() - 1) return CoreClass::kLittle;
  return CoreClass::kMid;
}

const CpuClusterSpec* cluster_of_class(const CpuSpec& cpu, CoreClass c) {
  if (cpu.clusters.empty()) return nullptr;
  if (cpu.clusters.size() == 1) return &cpu.clusters.front();
  for (std::size_t i = 0; i < cpu.clusters.size(); ++i) {
    if (core_class(cpu, i) == c) return &cpu.clusters[i];
  }
  if (c == CoreClass::kMid) return cluster_of_class(cpu, CoreClass::kPrime);
  if (c == CoreClass::kPrime) {  // named mid and little only: the fastest
    const CpuClusterSpec* best = &cpu.clusters.front();
    for (const auto& k : cpu.clusters) {
      if (core_speed(k) > core_speed(*best)) best = &k;
    }
    return best;
  }
  return nullptr;
}

CpuSpec parse_cpu_spec(const config::Section& s) {
  CpuSpec cpu;
  cpu.sleep_granularity = s.time("sleep_granularity");
  cpu.poll_interval = s.time("poll_interval");
  cpu.port_bandwidth = s.positive_quantity("port_bandwidth", Quantity::kBandwidth);
  cpu.gemm_tile_rows = static_cast<std::uint32_t>(s.integer("gemm_tile_rows", 1, 4096));
  cpu.task_dispatch = s.time("task_dispatch");
  cpu.idle_wakeup = s.time("idle_wakeup");
  cpu.idle_threshold = s.time("idle_threshold");
  const auto clusters = s.child("clusters");
  std::set<std::string> names;
  for (const auto& name : clusters.keys()) {
    // A name is addressed as a path (--set cpu.clusters.<name>.cores=2):
    // a dot, a space or an '=' would make it one that no setting can reach.
    if (name.empty() || name.find_first_of(". \t=[]{},:\"'") != std::string::npos) {
      throw config::ConfigError(clusters.location_of(name), "cpu.clusters." + name,
                                "a cluster's name must be one word, without dots, spaces, '=', quotes or brackets: settings address it as cpu.clusters.<name>");
    }
    const auto c = clusters.child(name);
    CpuClusterSpec cl;
    cl.name = name;
    cl.cores = static_cast<std::uint32_t>(c.integer("cores", 1, 64));
    cl.clock_hz = static_cast<std::uint64_t>(c.positive_quantity("clock", Quantity::kFrequency));
    cl.fp32_flops_per_cycle = c.number("fp32_flops_per_cycle", 0.1, 1024);
    cl.fp16_flops_per_cycle = c.number("fp16_flops_per_cycle", 0.1, 1024);
    cl.int8_ops_per_cycle = c.number("int8_ops_per_cycle", 0.1, 4096);
    cl.core_bandwidth = c.positive_quantity("core_bandwidth", Quantity::kBandwidth);
    if (c.has("simd_pipes")) {
      cl.simd_pipes = static_cast<std::uint32_t>(c.integer("simd_pipes", 1, 16));
      cl.dotprod = c.boolean("dotprod");  // required beside simd_pipes: the instruction mixes depend on it
    } else if (c.has("dotprod")) {
      cl.dotprod = c.boolean("dotprod");
    }
    cpu.clusters.push_back(cl);
  }
  if (cpu.clusters.empty()) {
    throw config::ConfigError(clusters.location(), clusters.path(), "at least one cluster is required");
  }
  return cpu;
}

}  // namespace socsim::hw
