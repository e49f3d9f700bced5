// A sweep spec as `socsim sweep --spec FILE` reads it, expanded into its runs and their command
// lines (a grid too large to expand must be a bad-input error, not an allocation failure).
#include "sim/config/config_error.h"
#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = socsim::fuzz::as_file(data, size, ".yaml");
  try {
    const auto spec = socsim::sweep::load_sweep_spec(file);
    const auto plan = socsim::sweep::expand_sweep(spec);
    (void)socsim::sweep::shard_runs(plan, socsim::sweep::parse_shard("1/2"), std::vector<double>(plan.runs.size(), 1.0));
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
