// The LLMS dataset length table (workloads/llms/datasets.yaml) as `socsim serve` reads it.
#include "sim/config/config_error.h"
#include "sim/systems/llms/call_trace.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = socsim::fuzz::as_file(data, size, ".yaml");
  try {
    (void)socsim::systems::llms::read_dataset_table(file);
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
