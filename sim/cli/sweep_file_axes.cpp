#include "sim/cli/sweep_file_axes.h"

#include <filesystem>
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "sim/cli/input_paths.h"
#include "sim/config/config_error.h"

namespace socsim::cli {

namespace {

bool is_file_key(const std::string& key) { return key == "soc" || key == "model" || key == "workload"; }

// The file a soc, model or workload value names: the path itself, made absolute and normal
// ("./x.yaml" and "x.yaml" are one), not through symbolic links (two names of one file may be
// meant: shadowAttn's importance file follows the model file's name). Nothing when it names no
// file: the run that names it says so, at its line.
std::optional<std::filesystem::path> named_file(const std::string& key, const std::string& value) {
  const InputKind kind = key == "soc" ? InputKind::kSoc : key == "model" ? InputKind::kModel : InputKind::kWorkload;
  try {
    std::error_code ec;
    auto file = std::filesystem::absolute(resolve_input(kind, value), ec).lexically_normal();
    if (ec) return std::nullopt;
    return file;
  } catch (const config::ConfigError&) {
    return std::nullopt;
  }
}

}  // namespace

void check_file_axes(const sweep::SweepSpec& spec) {
  // Two `runs:` cases that differ only in how they name a file (an id and a path to it) would run
  // the same simulation twice; the spec's own check compares the values' spellings.
  std::map<std::vector<std::pair<std::string, std::string>>, std::size_t> cases;
  for (std::size_t i = 0; i < spec.cases.size(); ++i) {
    std::vector<std::pair<std::string, std::string>> settings;
    for (const auto& r : spec.cases[i]) {
      const auto file = is_file_key(r.key) ? named_file(r.key, r.value) : std::nullopt;
      settings.emplace_back(r.key, file ? "file:" + file->string() : sweep::canonical_setting_value(r.value));
    }
    std::sort(settings.begin(), settings.end());
    const auto [it, fresh] = cases.emplace(std::move(settings), i);
    if (fresh || spec.cases[i].empty()) continue;
    const auto& first = spec.cases[it->second];
    throw config::ConfigError(spec.cases[i].front().location, "runs[" + std::to_string(i) + "]",
                              "has the same settings as runs[" + std::to_string(it->second) + "]" +
                                  (first.empty() ? std::string() : " (line " + std::to_string(first.front().location.line) + ")") +
                                  ", naming the same files: it would run the same simulation twice");
  }
  for (const auto& axis : spec.grid) {
    if (!is_file_key(axis.key)) continue;
    std::map<std::filesystem::path, const sweep::Setting*> seen;  // the file -> the first value naming it
    for (const auto& v : axis.values) {
      const auto named = named_file(axis.key, v.value);
      if (!named) continue;
      const std::filesystem::path& file = *named;
      const auto [it, fresh] = seen.emplace(file, &v);
      if (fresh) continue;
      throw config::ConfigError(v.location, "grid." + axis.key,
                                "'" + v.value + "' is listed twice (as '" + it->second->value + "', the first at line " +
                                    std::to_string(it->second->location.line) + "): both name " + file.string());
    }
  }
}

}  // namespace socsim::cli
