#include "sim/hw/power/power_spec.h"

namespace socsim::hw {

using config::Quantity;

namespace {
ActiveIdle parse_active_idle(const config::Section& s) {
  ActiveIdle a;
  a.active_w = s.quantity("active", Quantity::kPower, 0, 100);
  a.idle_w = s.quantity("idle", Quantity::kPower, 0, 100);
  return a;
}
}  // namespace

PowerSpec parse_power_spec(const config::Section& s) {
  PowerSpec p;
  if (s.has("npu")) p.npu = parse_active_idle(s.child("npu"));  // absent with the NPU (soc_spec.cpp checks)
  p.gpu = parse_active_idle(s.child("gpu"));
  const auto cpu = s.child("cpu_core");
  for (const auto& name : cpu.keys()) p.cpu_core[name] = parse_active_idle(cpu.child(name));
  p.dram_energy_per_byte = s.quantity("dram_energy", Quantity::kEnergyPerByte, 0, 1e-6);
  p.dram_background_w = s.quantity("dram_background", Quantity::kPower, 0, 100);
  p.storage_read_energy_per_byte = s.quantity("storage_read_energy", Quantity::kEnergyPerByte, 0, 1e-6);
  p.storage_write_energy_per_byte = s.quantity("storage_write_energy", Quantity::kEnergyPerByte, 0, 1e-6);
  p.storage_idle_w = s.quantity("storage_idle", Quantity::kPower, 0, 100);
  p.soc_base_w = s.quantity("soc_base", Quantity::kPower, 0, 100);
  return p;
}

}  // namespace socsim::hw
