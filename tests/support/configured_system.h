#pragma once
// A system configured as `socsim run` configures it, for system tests: the SoC file with `--set`
// overrides, the system's options read from the same tree, every key checked. Tests set the
// model and lengths in `req`, then call configure().
#include <memory>
#include <string>
#include <vector>

#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/report/trace.h"
#include "sim/runtime/run_request.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/system.h"

namespace socsim::test {

struct ConfiguredSystem {
  config::ConfigTree tree;
  runtime::RunRequest req;
  std::unique_ptr<systems::System> system;

  ConfiguredSystem(const std::string& soc, const std::vector<std::string>& sets)
      : tree(config::ConfigTree::load_file(std::string(SOCSIM_SOURCE_DIR) + "/soc_configs/" + soc + ".yaml")) {
    for (const auto& s : sets) tree.apply_override(s);
    req.soc_id = soc;
    req.soc = hw::parse_soc_spec(tree);
  }
  // After req.model and the lengths are set.
  void configure(const std::string& id) {
    req.system = id;
    system = systems::SystemRegistry::builtin().make(id);
    auto root = tree.root();
    system->configure(root, req.soc, req.model);
    tree.check_all_consumed();
  }
  report::RunReport run() {
    report::TraceRecorder t;
    return runtime::simulate_run(req, *system, t);
  }
  runtime::Plan plan() { return system->plan(req.soc, req.model, {req.prompt_tokens, req.decode_tokens, req.batch}); }
};

}  // namespace socsim::test
