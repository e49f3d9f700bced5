#include "sim/hw/cpu/cpu_cluster.h"

#include <stdexcept>

namespace socsim::hw {

CpuCluster::CpuCluster(Simulator& sim, const CpuClusterSpec& spec, DramModel& dram, PortId cpu_port)
    : sim_(sim),
      spec_(spec),
      clock_("cpu." + spec.name, spec.clock_hz),
      cores_(sim, "cpu." + spec.name, spec.cores),
      claimed_(spec.cores, false),
      busy_(spec.cores) {
  const std::string prefix = dram.port_name(cpu_port) + ".";
  for (std::uint32_t i = 0; i < spec.cores; ++i) {
    ports_.push_back(dram.add_port(prefix + spec.name + std::to_string(i), spec.core_bandwidth, cpu_port));
  }
}

CpuCluster::CoreIds CpuCluster::claim(std::uint32_t n) {
  if (n > spec_.cores - claimed_count_) {
    throw std::logic_error("cpu cluster '" + spec_.name + "': claimed more cores than are idle");
  }
  CoreIds got;
  for (std::uint32_t i = 0; i < spec_.cores && got.size() < n; ++i) {
    if (claimed_[i]) continue;
    claimed_[i] = true;
    busy_[i].begin(sim_.now());
    got.push_back(i);
  }
  if (claimed_count_ == 0 && n > 0) wall_.begin(sim_.now());
  claimed_count_ += n;
  return got;
}

void CpuCluster::unclaim(const CoreIds& cores) {
  for (const std::uint32_t i : cores) {
    if (!claimed_.at(i)) throw std::logic_error("cpu cluster '" + spec_.name + "': core released twice");
    claimed_[i] = false;
    busy_[i].end(sim_.now());
  }
  claimed_count_ -= static_cast<std::uint32_t>(cores.size());
  if (claimed_count_ == 0 && !cores.empty()) {
    wall_.end(sim_.now());
    ever_busy_ = true;
    idle_since_ = sim_.now();
  }
}

void CpuCluster::absorb(const CpuRunRecord::Cluster& r, Tick offset) {
  if (claimed_count_ != 0 || !cores_.idle() || r.core_busy.size() > spec_.cores) {
    throw std::logic_error("cpu cluster '" + spec_.name + "': a run is replayed only on idle cores of a cluster as large");
  }
  cores_.absorb(r.cores, offset);
  for (std::size_t i = 0; i < r.core_busy.size(); ++i) busy_[i].absorb(r.core_busy[i]);
  wall_.absorb(r.wall);
  stalled_ += r.stalled;
  ever_busy_ = true;
  idle_since_ = offset + r.idle_since;
}

Tick CpuCluster::core_busy() const {
  Tick sum = 0;
  for (const auto& b : busy_) sum += b.busy(sim_.now());
  return sum;
}

}  // namespace socsim::hw
