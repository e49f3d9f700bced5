// A Hugging Face config.json as `--model FILE` reads it.
#include "sim/config/config_error.h"
#include "sim/model/model_config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto m = socsim::model::parse_model_config(socsim::fuzz::text_of(data, size), "fuzz.json");
    (void)m.total_params();
    (void)m.streamed_weight_bytes(4.5);
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
