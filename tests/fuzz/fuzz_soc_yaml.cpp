// SoC YAML as `socsim run --soc FILE` reads it: parse, read the soc tree, check nothing is left
// unread, dump the resolved YAML for the report.
#include "sim/config/config_error.h"
#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto tree = socsim::config::ConfigTree::load_string(socsim::fuzz::text_of(data, size), "fuzz.yaml");
    socsim::hw::SocSpec soc = socsim::hw::parse_soc_spec(tree);
    tree.check_all_consumed();
    (void)tree.dump_yaml();
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
