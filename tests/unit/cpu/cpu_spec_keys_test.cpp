// The CPU keys the CPU model added to the SoC schema: gemm_tile_rows, task_dispatch and the
// idle wake-up.
#include <gtest/gtest.h>

#include <string>

#include "sim/config/config_error.h"
#include "sim/config/config_tree.h"
#include "sim/hw/cpu/cpu_spec.h"

namespace socsim::hw {
namespace {

std::string cpu_yaml(const std::string& tile_rows) {
  return "cpu:\n"
         "  sleep_granularity: 90 us\n"
         "  poll_interval: 1 us\n"
         "  port_bandwidth: 40 GB/s\n"
         "  gemm_tile_rows: " + tile_rows + "\n"
         "  task_dispatch: 3 us\n"
         "  idle_wakeup: 1.5 ms\n"
         "  idle_threshold: 5 ms\n"
         "  clusters:\n"
         "    mid: {cores: 4, clock: 3 GHz, fp32_flops_per_cycle: 8, fp16_flops_per_cycle: 16,\n"
         "          int8_ops_per_cycle: 32, core_bandwidth: 15 GB/s}\n";
}

TEST(CpuSpecKeys, ParsesTileRowsAndDispatch) {
  auto tree = config::ConfigTree::load_string(cpu_yaml("64"), "cpu.yaml");
  const CpuSpec s = parse_cpu_spec(tree.root().child("cpu"));
  EXPECT_EQ(s.gemm_tile_rows, 64u);
  EXPECT_EQ(s.task_dispatch, 3 * kMicrosecond);
  EXPECT_EQ(s.idle_wakeup, 1500 * kMicrosecond);
  EXPECT_EQ(s.idle_threshold, 5 * kMillisecond);
  tree.check_all_consumed();
}

TEST(CpuSpecKeys, RejectsZeroTileRows) {
  auto tree = config::ConfigTree::load_string(cpu_yaml("0"), "cpu.yaml");
  EXPECT_THROW(parse_cpu_spec(tree.root().child("cpu")), config::ConfigError);
}

}  // namespace
}  // namespace socsim::hw
