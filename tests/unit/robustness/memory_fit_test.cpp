// sim/systems/memory_fit: weights at the system's bits plus the FP16 KV cache, against dram.capacity.
#include <gtest/gtest.h>

#include "sim/config/config_error.h"
#include "sim/systems/memory_fit.h"

namespace socsim::systems {
namespace {

model::ModelConfig tiny() {
  model::ModelConfig m;
  m.id = "tiny";
  m.hidden = 64, m.intermediate = 128, m.layers = 2, m.heads = 4, m.kv_heads = 2, m.head_dim = 16, m.vocab = 100;
  return m;
}

TEST(MemoryFit, HandCountedNeed) {
  const auto m = tiny();
  const MemoryNeed n = memory_need(m, 4.0, 10, 3);
  EXPECT_DOUBLE_EQ(n.weight_bytes, static_cast<double>(m.total_params()) / 2.0);
  // K and V x 2 layers x 2 KV heads x 16 dims x 2 B = 256 B per token; 10 tokens x batch 3.
  EXPECT_DOUBLE_EQ(n.kv_bytes, 256.0 * 30.0);
}

TEST(MemoryFit, ExactFitPassesOneByteLessFails) {
  const auto m = tiny();
  hw::SocSpec soc;
  const double need = memory_need(m, 8.0, 10, 1).total();
  soc.dram.capacity_bytes = static_cast<std::uint64_t>(need);
  EXPECT_NO_THROW(check_fits_device_memory(soc, m, "cpu-only", 8.0, 10, 1));
  soc.dram.capacity_bytes -= 1;
  EXPECT_THROW(check_fits_device_memory(soc, m, "cpu-only", 8.0, 10, 1), config::ConfigError);
}

}  // namespace
}  // namespace socsim::systems
