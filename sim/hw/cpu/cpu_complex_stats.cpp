// CpuComplex's statistics: busy core-time and wall time per cluster, ops done, and the maps the
// energy model's Activity takes.
#include "sim/hw/cpu/cpu_complex.h"

namespace socsim::hw {

Tick CpuComplex::core_busy(std::string_view cluster) const { return find(cluster)->core_busy(); }
Tick CpuComplex::wall_busy(std::string_view cluster) const { return find(cluster)->wall_busy(); }
double CpuComplex::ops_done(std::string_view cluster) const { return find(cluster)->ops_done(); }

double CpuComplex::ops_done() const {
  double sum = 0;
  for (const auto& c : clusters_) sum += c->ops_done();
  return sum;
}

std::map<std::string, Tick> CpuComplex::core_busy_by_cluster() const {
  std::map<std::string, Tick> m;
  for (const auto& c : clusters_) m[c->name()] = c->core_busy();
  return m;
}

std::map<std::string, Tick> CpuComplex::core_stalled_by_cluster() const {
  std::map<std::string, Tick> m;
  for (const auto& c : clusters_) m[c->name()] = c->core_stalled();
  return m;
}

std::map<std::string, std::uint32_t> CpuComplex::cores_by_cluster() const {
  std::map<std::string, std::uint32_t> m;
  for (const auto& c : clusters_) m[c->name()] = c->spec().cores;
  return m;
}

void CpuComplex::register_stats(StatRegistry& reg) const {
  for (const auto& c : clusters_) {
    reg.add("cpu." + c->name() + ".busy", c->wall_busy_time());
    for (std::uint32_t i = 0; i < c->spec().cores; ++i) reg.add(track(*c, i) + ".busy", c->core_busy_time(i));
  }
}

}  // namespace socsim::hw
