// A workload YAML as `--workload FILE` reads it, expanded into its requests.
#include "sim/config/config_error.h"
#include "sim/runtime/workload/workload.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto w = socsim::runtime::parse_workload(socsim::fuzz::text_of(data, size), "fuzz.yaml");
    if (w.repeat <= 4096) (void)socsim::runtime::draw_requests(w);  // bounded: a huge repeat is legal
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
