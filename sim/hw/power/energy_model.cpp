#include "sim/hw/power/energy_model.h"

#include <stdexcept>

namespace socsim::hw {

namespace {

// Joules of a unit that is busy for `busy` of `span` ticks (both in unit-ticks: a cluster of n
// cores spans n x duration core-ticks).
double unit_energy(const ActiveIdle& w, double busy_s, double span_s) {
  return w.active_w * busy_s + w.idle_w * (span_s - busy_s);
}

void check_busy(const char* unit, Tick busy, Tick duration) {
  if (busy > duration) {
    throw std::invalid_argument(std::string("energy: ") + unit + " busy " + std::to_string(busy) +
                                " ps exceeds the run duration " + std::to_string(duration) + " ps");
  }
}

const ActiveIdle& cluster_power(const PowerSpec& p, const std::string& name) {
  const auto it = p.cpu_core.find(name);
  if (it == p.cpu_core.end()) {
    std::string known;
    for (const auto& [n, _] : p.cpu_core) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("energy: unknown CPU cluster '" + name + "' (power.cpu_core has: " + known + ")");
  }
  return it->second;
}

}  // namespace

EnergyBreakdown compute_energy(const PowerSpec& p, const Activity& a) {
  check_busy("npu", a.npu.busy, a.duration);
  check_busy("gpu", a.gpu.busy, a.duration);
  const double run_s = to_seconds(a.duration);
  EnergyBreakdown e;
  e.npu_j = unit_energy(p.npu, to_seconds(a.npu.busy), run_s);
  e.gpu_j = unit_energy(p.gpu, to_seconds(a.gpu.busy), run_s);

  for (const auto& [name, stalled] : a.cpu_core_stalled) {
    if (stalled > 0 && !a.cpu_core_busy.count(name)) {
      throw std::invalid_argument("energy: CPU cluster '" + name + "' has stalled time but no busy time");
    }
  }
  for (const auto& [name, busy] : a.cpu_core_busy) {
    cluster_power(p, name);
    if (!a.cpu_cores.count(name)) {
      throw std::invalid_argument("energy: CPU cluster '" + name + "' has busy time but no core count");
    }
  }
  for (const auto& [name, cores] : a.cpu_cores) {
    const ActiveIdle& w = cluster_power(p, name);
    const auto it = a.cpu_core_busy.find(name);
    const Tick busy = it == a.cpu_core_busy.end() ? 0 : it->second;
    // Core-time: each of the cluster's cores idles whenever it is not busy.
    const double span_s = run_s * cores;
    if (static_cast<unsigned __int128>(busy) > static_cast<unsigned __int128>(a.duration) * cores) {
      throw std::invalid_argument("energy: CPU cluster '" + name + "' core-time " + std::to_string(busy) +
                                  " ps exceeds " + std::to_string(cores) + " cores x duration " +
                                  std::to_string(a.duration) + " ps");
    }
    const auto st = a.cpu_core_stalled.find(name);
    const Tick stalled = st == a.cpu_core_stalled.end() ? 0 : st->second;
    if (stalled > busy) {
      throw std::invalid_argument("energy: CPU cluster '" + name + "' stalled core-time " + std::to_string(stalled) +
                                  " ps exceeds its busy core-time " + std::to_string(busy) + " ps");
    }
    if (stalled > 0 && (w.stalled() > w.active_w || w.stalled() < w.idle_w)) {
      throw std::invalid_argument("energy: CPU cluster '" + name + "' stalled power " + std::to_string(w.stalled()) +
                                  " W is outside its idle..active power");
    }
    const double j = unit_energy(w, to_seconds(busy - stalled), span_s - to_seconds(stalled)) + w.stalled() * to_seconds(stalled);
    e.cpu_cluster_j[name] = j;
    e.cpu_j += j;
  }

  e.dram_j = static_cast<double>(a.dram_bytes) * p.dram_energy_per_byte + p.dram_background_w * run_s;
  e.storage_j = static_cast<double>(a.storage_read_bytes) * p.storage_read_energy_per_byte +
                static_cast<double>(a.storage_write_bytes) * p.storage_write_energy_per_byte +
                p.storage_idle_w * run_s;
  e.base_j = p.soc_base_w * run_s;
  e.total_j = e.npu_j + e.gpu_j + e.cpu_j + e.dram_j + e.storage_j + e.base_j;
  e.average_power_w = a.duration == 0 ? 0.0 : e.total_j / run_s;
  return e;
}

}  // namespace socsim::hw
