#pragma once
// Turns a claim's command block (`run: {soc: ..., prompt: 256, set: {...}}`) into the argv the
// command line would take, so a claim means exactly what the same options typed by hand mean.
#include <string>
#include <vector>

#include "sim/config/config_tree.h"

namespace socsim::validation {

// Each key becomes `--key value` in document order; `set` (a map) becomes one `--set k=v` per
// entry. Values are the scalars as written in YAML (numbers keep their spelling, booleans are
// true/false); a map or list where a scalar belongs is a ConfigError at its file:line.
std::vector<std::string> command_args(const config::Section& block);

}  // namespace socsim::validation
