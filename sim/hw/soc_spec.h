#pragma once
// A whole SoC description: every unit's parameters, parsed and checked from a SoC YAML file
// (plus includes and --set overrides). Loading consumes every key; any key left unread is an
// error (a typo must never silently fall back to a default).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sim/config/config_tree.h"
#include "sim/hw/cpu/cpu_spec.h"
#include "sim/hw/gpu/gpu_spec.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/hw/memory/dram_spec.h"
#include "sim/hw/npu/npu_spec.h"
#include "sim/hw/power/power_spec.h"
#include "sim/hw/storage/storage_spec.h"

namespace socsim::hw {

struct SocSpec {
  std::string name;         // human name ("Snapdragon 8 Gen 3")
  std::string source_file;  // the file it was loaded from
  bool has_npu = true;  // false: the file has no `npu:` section (boards without one: Jetson TX2/Orin NX)
  NpuSpec npu;
  GpuSpec gpu;
  CpuSpec cpu;
  DramSpec dram;
  StorageSpec storage;
  PowerSpec power;
  std::string resolved_yaml;  // after includes and overrides, for reports
  // Where the keys a HardwareLimitError can name are set (file and line, or --set): npu.tcm,
  // npu.session_limit, cpu.clusters.<name>.simd_pipes (the cluster's line when it has none).
  std::map<std::string, config::SourceLocation> limit_locations;
};

// Adds where `soc` sets the error's key, when it is one of limit_locations.
void locate_limit(HardwareLimitError& e, const SocSpec& soc);

// Parses the `soc` subtree of a loaded tree. The caller decides when to check for unread keys
// (a run also reads strategy options from the same tree).
SocSpec parse_soc_spec(config::ConfigTree& tree);

// Load a file, apply overrides, parse and check that every key was understood.
SocSpec load_soc_spec(const std::filesystem::path& file, const std::vector<std::string>& overrides);

}  // namespace socsim::hw
