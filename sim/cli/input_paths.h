#pragma once
// Resolves `--soc`, `--model`, `--workload`, `sweep --spec` arguments: a path to a file, or a bare id looked up in
// the project's data folders (soc_configs/<id>.yaml, models/<id>.json, workloads/<id>.yaml, workloads/sweeps/<id>.yaml).
// Folders are searched in the current directory first, then in the source tree the binary was
// built from, so `build/socsim --soc snapdragon-8gen3` works from anywhere.
#include <filesystem>
#include <string>
#include <vector>

namespace socsim::cli {

enum class InputKind { kSoc, kModel, kWorkload, kSweep };

// Throws config::ConfigError (exit 2) naming the option, the known ids and a close match.
std::filesystem::path resolve_input(InputKind kind, const std::string& arg);

// Known ids of a kind (file stems in its folder), sorted.
std::vector<std::string> known_ids(InputKind kind);

}  // namespace socsim::cli
