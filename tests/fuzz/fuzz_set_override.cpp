// `--set key=value` on a real SoC file: the input is one or more assignments, one per line,
// applied to snapdragon-8gen3.yaml before it is parsed (what a user types on the command line).
#include <sstream>

#include "sim/config/config_error.h"
#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string base = SOCSIM_SOURCE_DIR "/soc_configs/snapdragon-8gen3.yaml";
  try {
    auto tree = socsim::config::ConfigTree::load_file(base);
    std::istringstream lines(socsim::fuzz::text_of(data, size));
    for (std::string line; std::getline(lines, line);) tree.apply_override(line);
    (void)socsim::hw::parse_soc_spec(tree);
    tree.check_all_consumed();
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
