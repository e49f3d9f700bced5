// An LLMS call trace as `socsim serve --trace FILE` replays it (8 contexts).
#include "sim/config/config_error.h"
#include "sim/systems/llms/call_trace.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = socsim::fuzz::as_file(data, size, ".trace");
  try {
    (void)socsim::systems::llms::read_trace_file(file, 8);
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
