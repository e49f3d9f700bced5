// shadowAttn's offline importance file as `--set shadowattn.importance_file=F` reads it, checked
// against qwen2-0.5b (the seeds are the committed models/shadowattn/*.importance.json).
#include "sim/config/config_error.h"
#include "sim/model/model_config.h"
#include "sim/systems/shadowattn/importance_file.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto model = socsim::model::load_model_config(std::string(SOCSIM_SOURCE_DIR) + "/models/qwen2-0.5b.json");
  try {
    const auto o = socsim::systems::shadowattn::parse_importance(socsim::fuzz::text_of(data, size), "fuzz.json", model);
    (void)socsim::systems::shadowattn::importance_json(model, o);
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
