// A claims file as `socsim validate --claims FILE` reads it.
#include "sim/config/config_error.h"
#include "sim/validation/claim.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)socsim::validation::load_claims_string(socsim::fuzz::text_of(data, size), "fuzz.yaml");
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
