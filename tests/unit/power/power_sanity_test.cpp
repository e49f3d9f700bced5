// The SoC files' power numbers against the one public whole-device figure: the phone stays under
// ~5 W in NPU decode (TTS paper; ~4.4 W during an HMX loop, ../shared/hardware-facts.md).
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/hw/cpu/cpu_spec.h"
#include "sim/hw/power/energy_model.h"
#include "sim/hw/soc_spec.h"

namespace socsim::hw {
namespace {

SocSpec load(const char* id) {
  return load_soc_spec(std::filesystem::path(SOCSIM_SOURCE_DIR) / "soc_configs" / (std::string(id) + ".yaml"), {});
}

// NPU decode for 1 s: NPU busy throughout, one mid core polling throughout (HeteroLLM 4.2's
// sync thread), DRAM streaming the weights at 40 GB/s, everything else idle.
Activity npu_decode_second(const SocSpec& soc) {
  Activity a;
  a.duration = 1 * kSecond;
  a.npu.busy = a.duration;
  for (const auto& c : soc.cpu.clusters) a.cpu_cores[c.name] = c.cores;
  a.cpu_core_busy["mid"] = a.duration;
  a.dram_bytes = 40'000'000'000;
  return a;
}

TEST(PowerSanity, Gen3NpuDecodeStaysUnderFiveWatts) {
  const SocSpec soc = load("snapdragon-8gen3");
  const EnergyBreakdown e = compute_energy(soc.power, npu_decode_second(soc));
  // 1.5 NPU + 1.0 mid + 0.07 idle cores + 0.05 GPU idle + 1.28 + 0.3 DRAM + 0.01 + 0.5 = 4.71 W
  // with the values in the file (see its power: comment).
  EXPECT_GT(e.average_power_w, 3.0);
  EXPECT_LT(e.average_power_w, 5.0);
}

TEST(PowerSanity, Gen2InheritsSanePower) {
  const SocSpec soc = load("snapdragon-8gen2");
  const EnergyBreakdown e = compute_energy(soc.power, npu_decode_second(soc));
  EXPECT_GT(e.average_power_w, 3.0);
  EXPECT_LT(e.average_power_w, 5.0);
}

TEST(PowerSanity, EverySocHasTheCpuModelKeys) {
  for (const char* id : {"snapdragon-8gen3", "snapdragon-8gen2", "snapdragon-8elite"}) {
    const SocSpec soc = load(id);
    EXPECT_GE(soc.cpu.gemm_tile_rows, 1u) << id;
    EXPECT_GT(soc.cpu.task_dispatch, 0u) << id;
    EXPECT_GT(soc.cpu.sleep_granularity, 0u) << id;
  }
}

}  // namespace
}  // namespace socsim::hw
