// compute_energy on a hand-computed case and its argument checks.
#include "sim/hw/power/energy_model.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace socsim::hw {
namespace {

PowerSpec hand_spec() {
  PowerSpec p;
  p.npu = {2.0, 0.1};
  p.gpu = {3.0, 0.2};
  p.cpu_core["prime"] = {3.0, 0.05};
  p.cpu_core["mid"] = {1.0, 0.02};
  p.dram_energy_per_byte = 1e-11;  // 10 pJ/B
  p.dram_background_w = 0.3;
  p.storage_read_energy_per_byte = 1e-9;
  p.storage_write_energy_per_byte = 2e-9;
  p.storage_idle_w = 0.01;
  p.soc_base_w = 0.5;
  return p;
}

Activity hand_activity() {
  Activity a;
  a.duration = 2 * kSecond;
  a.npu.busy = 500 * kMillisecond;
  a.cpu_core_busy = {{"prime", 1 * kSecond}, {"mid", 3 * kSecond}};
  a.cpu_cores = {{"prime", 1}, {"mid", 4}};
  a.dram_bytes = 10'000'000'000;
  a.storage_read_bytes = 100'000'000;
  a.storage_write_bytes = 50'000'000;
  return a;
}

TEST(EnergyModel, HandComputedCase) {
  const EnergyBreakdown e = compute_energy(hand_spec(), hand_activity());
  // NPU: 2 W x 0.5 s + 0.1 W x 1.5 s = 1.15 J. GPU: idle 0.2 W x 2 s = 0.4 J.
  EXPECT_NEAR(e.npu_j, 1.15, 1e-12);
  EXPECT_NEAR(e.gpu_j, 0.4, 1e-12);
  // prime: 3 W x 1 s + 0.05 W x (1 x 2 - 1) s = 3.05 J.
  // mid: 1 W x 3 s + 0.02 W x (4 x 2 - 3) s = 3.1 J. CPU = 6.15 J.
  EXPECT_NEAR(e.cpu_cluster_j.at("prime"), 3.05, 1e-12);
  EXPECT_NEAR(e.cpu_cluster_j.at("mid"), 3.1, 1e-12);
  EXPECT_NEAR(e.cpu_j, 6.15, 1e-12);
  // DRAM: 1e10 B x 10 pJ/B = 0.1 J + 0.3 W x 2 s = 0.7 J.
  EXPECT_NEAR(e.dram_j, 0.7, 1e-12);
  // Storage: 1e8 x 1 nJ + 5e7 x 2 nJ + 0.01 W x 2 s = 0.1 + 0.1 + 0.02 = 0.22 J.
  EXPECT_NEAR(e.storage_j, 0.22, 1e-12);
  // Base: 0.5 W x 2 s = 1 J. Total 1.15 + 0.4 + 6.15 + 0.7 + 0.22 + 1 = 9.62 J = 4.81 W avg.
  EXPECT_NEAR(e.base_j, 1.0, 1e-12);
  EXPECT_NEAR(e.total_j, 9.62, 1e-12);
  EXPECT_NEAR(e.average_power_w, 4.81, 1e-12);
}

TEST(EnergyModel, StalledCoreTimeDrawsStalledPower) {
  PowerSpec p = hand_spec();
  p.cpu_core["mid"].stalled_w = 0.4;
  Activity a = hand_activity();
  a.cpu_core_stalled = {{"mid", 1 * kSecond}};
  const EnergyBreakdown e = compute_energy(p, a);
  // mid: 1 W x (3 - 1) s + 0.4 W x 1 s + 0.02 W x (8 - 3) s = 2.5 J (3.1 J with no stall).
  EXPECT_NEAR(e.cpu_cluster_j.at("mid"), 2.5, 1e-12);
  EXPECT_NEAR(e.cpu_cluster_j.at("prime"), 3.05, 1e-12);
  // Not given (a spec built in code): stalled power is the active power, as before.
  p.cpu_core["mid"].stalled_w = -1;
  a.cpu_core_stalled = {{"mid", 1 * kSecond}};
  EXPECT_NEAR(compute_energy(p, a).cpu_cluster_j.at("mid"), 3.1, 1e-12);
  p.cpu_core["mid"].stalled_w = 0.01;  // below idle
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);
  p.cpu_core["mid"].stalled_w = 0.4;
  a.cpu_core_stalled = {{"mid", 4 * kSecond}};  // more than its 3 s busy
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);
  a.cpu_core_stalled = {{"little", 1 * kSecond}};  // a cluster with no busy time
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);
}

TEST(EnergyModel, ZeroDurationHasNoAveragePower) {
  Activity a;
  a.cpu_cores = {{"mid", 4}};
  const EnergyBreakdown e = compute_energy(hand_spec(), a);
  EXPECT_EQ(e.total_j, 0.0);
  EXPECT_EQ(e.average_power_w, 0.0);
}

TEST(EnergyModel, RejectsImpossibleActivity) {
  const PowerSpec p = hand_spec();
  Activity a = hand_activity();
  a.npu.busy = 3 * kSecond;  // > 2 s run
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);

  a = hand_activity();
  a.gpu.busy = 3 * kSecond;
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);

  a = hand_activity();
  a.cpu_core_busy["mid"] = 9 * kSecond;  // > 4 cores x 2 s
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);
  a.cpu_core_busy["mid"] = 8 * kSecond;  // exactly every core busy all the time: allowed
  EXPECT_NO_THROW(compute_energy(p, a));

  a = hand_activity();
  a.cpu_core_busy["little"] = 1;  // no such cluster in the power spec
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);

  a = hand_activity();
  a.cpu_cores["little"] = 2;
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);

  a = hand_activity();
  a.cpu_cores.erase("mid");  // busy but no core count
  EXPECT_THROW(compute_energy(p, a), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::hw
