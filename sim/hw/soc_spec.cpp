#include "sim/hw/soc_spec.h"

#include "sim/config/config_error.h"

namespace socsim::hw {

SocSpec parse_soc_spec(config::ConfigTree& tree) {
  auto root = tree.root();
  SocSpec soc;
  soc.name = root.string("name");
  // The NPU is optional (Jetson boards have none that the models use); its power entry goes with it.
  soc.has_npu = root.has("npu");
  if (soc.has_npu) {
    // `--set npu.tcm=...` on a SoC without an NPU creates the section it would change; it would
    // then be read as an NPU missing every other parameter ("npu.impl: missing required key").
    const auto npu = root.child("npu");
    if (npu.location().file == "--set" && !npu.has("impl")) {
      const auto keys = npu.keys();
      throw config::ConfigError(npu.location(), "npu" + (keys.empty() ? std::string() : "." + keys.front()),
                                "this SoC (" + soc.name + ") has no NPU (no `npu:` section in its file); --set changes a unit's "
                                "parameters but cannot add the unit");
    }
  }
  if (soc.has_npu) {
    const auto npu = root.child("npu");
    soc.npu = parse_npu_spec(npu);
    soc.limit_locations["npu.tcm"] = npu.location_of("tcm");
    soc.limit_locations["npu.session_limit"] = npu.location_of("session_limit");
  }
  soc.gpu = parse_gpu_spec(root.child("gpu"));
  soc.cpu = parse_cpu_spec(root.child("cpu"));
  {
    const auto clusters = root.child("cpu").child("clusters");
    for (const auto& c : soc.cpu.clusters) {
      const auto cluster = clusters.child(c.name);
      soc.limit_locations["cpu.clusters." + c.name + ".simd_pipes"] =
          cluster.has("simd_pipes") ? cluster.location_of("simd_pipes") : clusters.location_of(c.name);
    }
  }
  soc.dram = parse_dram_spec(root.child("dram"));
  soc.limit_locations["dram.capacity"] = root.child("dram").location_of("capacity");
  soc.storage = parse_storage_spec(root.child("storage"));
  const auto power = root.child("power");
  soc.power = parse_power_spec(power);
  if (soc.has_npu != power.has("npu")) {
    throw config::ConfigError(power.location(), "power.npu",
                              soc.has_npu ? "missing power entry for the NPU" : "an NPU power entry without an `npu:` section");
  }
  // Every CPU cluster needs a power entry and vice versa.
  for (const auto& c : soc.cpu.clusters) {
    if (!soc.power.cpu_core.count(c.name)) {
      throw config::ConfigError(power.child("cpu_core").location(), "power.cpu_core." + c.name,
                                "missing power entry for CPU cluster '" + c.name + "'");
    }
  }
  for (const auto& [name, _] : soc.power.cpu_core) {
    (void)_;
    bool found = false;
    for (const auto& c : soc.cpu.clusters) found = found || c.name == name;
    if (!found) {
      throw config::ConfigError(power.child("cpu_core").location_of(name), "power.cpu_core." + name,
                                "no CPU cluster named '" + name + "' in cpu.clusters");
    }
  }
  return soc;
}

SocSpec load_soc_spec(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
  auto tree = config::ConfigTree::load_file(file);
  for (const auto& o : overrides) tree.apply_override(o);
  SocSpec soc = parse_soc_spec(tree);
  tree.check_all_consumed();
  soc.source_file = file.string();
  soc.resolved_yaml = tree.dump_yaml();
  return soc;
}

void locate_limit(HardwareLimitError& e, const SocSpec& soc) {
  if (const auto it = soc.limit_locations.find(e.key()); it != soc.limit_locations.end()) e.set_location(it->second);
}

}  // namespace socsim::hw
