#include "sim/cli/sweep_file_axes.h"

#include <filesystem>
#include <map>
#include <string>

#include "sim/cli/input_paths.h"
#include "sim/config/config_error.h"

namespace socsim::cli {

void check_file_axes(const sweep::SweepSpec& spec) {
  for (const auto& axis : spec.grid) {
    if (axis.key != "soc" && axis.key != "model" && axis.key != "workload") continue;
    const InputKind kind = axis.key == "soc" ? InputKind::kSoc : axis.key == "model" ? InputKind::kModel : InputKind::kWorkload;
    std::map<std::filesystem::path, const sweep::Setting*> seen;  // the file -> the first value naming it
    for (const auto& v : axis.values) {
      std::filesystem::path file;
      try {
        // The path itself, made absolute and normal ("./x.yaml" and "x.yaml" are one), not
        // through symbolic links: two names of one file may be meant (shadowAttn's importance
        // file follows the model file's name).
        std::error_code ec;
        file = std::filesystem::absolute(resolve_input(kind, v.value), ec).lexically_normal();
        if (ec) continue;
      } catch (const config::ConfigError&) {
        continue;  // no such file: the run that names it says so, at this line
      }
      const auto [it, fresh] = seen.emplace(file, &v);
      if (fresh) continue;
      throw config::ConfigError(v.location, "grid." + axis.key,
                                "'" + v.value + "' is listed twice (as '" + it->second->value + "', the first at line " +
                                    std::to_string(it->second->location.line) + "): both name " + file.string());
    }
  }
}

}  // namespace socsim::cli
