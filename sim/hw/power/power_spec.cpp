#include "sim/hw/power/power_spec.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"

namespace socsim::hw {

using config::Quantity;

namespace {
ActiveIdle parse_active_idle(const config::Section& s) {
  ActiveIdle a;
  a.active_w = s.quantity("active", Quantity::kPower, 0, 100);
  a.idle_w = s.quantity("idle", Quantity::kPower, 0, 100);
  // Energy is active x busy + idle x the rest (energy_model.cpp): a unit drawing less busy than
  // idle would save energy by working (`power.npu={active: 0 W, idle: 5 W}` ran).
  if (a.active_w < a.idle_w) {
    const std::string_view blamed = s.changed_of({"active", "idle"});
    throw config::ConfigError(s.location_of(blamed), s.path() + "." + std::string(blamed),
                              fmt::format("the active power ({}.active, {:g} W) must be at least the idle power ({}.idle, {:g} W): "
                                          "active is what the unit draws while busy, idle included",
                                          s.path(), a.active_w, s.path(), a.idle_w));
  }
  return a;
}

ActiveIdle parse_core_power(const config::Section& s) {
  ActiveIdle a = parse_active_idle(s);
  if (s.has("stalled")) {
    a.stalled_w = s.quantity("stalled", Quantity::kPower, 0, 100);
    if (a.stalled_w > a.active_w || a.stalled_w < a.idle_w) {
      // Blame the one the user changed (`--set` of active below the file's stalled power).
      const std::string_view blamed = s.changed_of({"stalled", "active", "idle"});
      const std::string key = s.path() + "." + std::string(blamed);
      throw config::ConfigError(s.location_of(blamed), key,
                                fmt::format("the stalled power ({}.stalled, {:g} W) must lie between the core's idle ({}.idle, {:g} W) and active "
                                            "({}.active, {:g} W) power: a stalled core is busy but waits on memory "
                                            "(changing active or idle may need stalled changed too)",
                                            s.path(), a.stalled_w, s.path(), a.idle_w, s.path(), a.active_w));
    }
  }
  return a;
}
}  // namespace

PowerSpec parse_power_spec(const config::Section& s) {
  PowerSpec p;
  if (s.has("npu")) p.npu = parse_active_idle(s.child("npu"));  // absent with the NPU (soc_spec.cpp checks)
  p.gpu = parse_active_idle(s.child("gpu"));
  const auto cpu = s.child("cpu_core");
  for (const auto& name : cpu.keys()) p.cpu_core[name] = parse_core_power(cpu.child(name));
  p.dram_energy_per_byte = s.quantity("dram_energy", Quantity::kEnergyPerByte, 0, 1e-6);
  p.dram_background_w = s.quantity("dram_background", Quantity::kPower, 0, 100);
  p.storage_read_energy_per_byte = s.quantity("storage_read_energy", Quantity::kEnergyPerByte, 0, 1e-6);
  p.storage_write_energy_per_byte = s.quantity("storage_write_energy", Quantity::kEnergyPerByte, 0, 1e-6);
  p.storage_idle_w = s.quantity("storage_idle", Quantity::kPower, 0, 100);
  p.soc_base_w = s.quantity("soc_base", Quantity::kPower, 0, 100);
  return p;
}

}  // namespace socsim::hw
