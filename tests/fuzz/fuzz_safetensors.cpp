// A safetensors file as `run --mode functional --weights FILE` reads it: the header is validated
// when opened, then every tensor is read.
#include "sim/config/config_error.h"
#include "sim/functional/safetensors_file.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = socsim::fuzz::as_file(data, size, ".safetensors");
  try {
    const socsim::functional::SafetensorsFile st(file);
    for (const auto& name : st.names()) (void)st.read(name);
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
