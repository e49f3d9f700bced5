#include "sim/cli/input_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "sim/config/config_error.h"
#include "sim/config/edit_distance.h"

namespace socsim::cli {

namespace fs = std::filesystem;

namespace {

struct KindInfo {
  const char* option;
  const char* folder;
  const char* extension;
};

KindInfo info(InputKind k) {
  switch (k) {
    case InputKind::kSoc: return {"--soc", "soc_configs", ".yaml"};
    case InputKind::kModel: return {"--model", "models", ".json"};
    case InputKind::kWorkload: return {"--workload", "workloads", ".yaml"};
    case InputKind::kSweep: return {"--spec", "workloads/sweeps", ".yaml"};
  }
  return {"?", "?", "?"};
}

std::vector<fs::path> search_roots() { return {fs::current_path(), fs::path(SOCSIM_SOURCE_DIR)}; }

}  // namespace

std::vector<std::string> known_ids(InputKind kind) {
  const KindInfo k = info(kind);
  std::set<std::string> ids;
  for (const auto& root : search_roots()) {
    std::error_code ec;
    const fs::path dir = root / k.folder;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.is_regular_file() && e.path().extension() == k.extension) ids.insert(e.path().stem().string());
    }
  }
  return {ids.begin(), ids.end()};
}

fs::path resolve_input(InputKind kind, const std::string& arg) {
  const KindInfo k = info(kind);
  const config::SourceLocation where{"command line", 0, 0};
  if (arg.empty()) throw config::ConfigError(where, k.option, "expected a file path or an id, got an empty value");
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) return fs::path(arg);
  // A path (or an existing folder such as `.`: no id is a folder's name) is opened as given, and
  // the reason it cannot be is the system's (a name too long, a symlink loop, ...).
  const bool looks_like_path = arg.find('/') != std::string::npos || fs::path(arg).extension() == k.extension || fs::is_directory(arg, ec);
  if (looks_like_path) {
    std::string why = " (no such file)";
    if (fs::is_directory(arg, ec)) {
      why = " (a folder, not a file)";
    } else if (fs::exists(arg, ec)) {
      why = " (not a regular file)";
    } else if (struct stat st {}; ::stat(arg.c_str(), &st) != 0 && errno != ENOENT) {
      why = " (" + std::string(std::strerror(errno)) + ")";
    }
    throw config::ConfigError(where, k.option, "cannot open file '" + arg + "'" + why);
  }
  for (const auto& root : search_roots()) {
    const fs::path candidate = root / k.folder / (arg + k.extension);
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  const auto ids = known_ids(kind);
  std::string msg = "unknown id '" + arg + "'";
  std::string best;
  std::size_t best_d = 3;
  for (const auto& id : ids) {
    const std::size_t d = config::detail::edit_distance(arg, id);
    if (d < best_d) best_d = d, best = id;
  }
  if (!best.empty()) msg += "; did you mean '" + best + "'?";
  msg += " Known: ";
  for (std::size_t i = 0; i < ids.size(); ++i) msg += (i ? ", " : "") + ids[i];
  if (ids.empty()) msg += "(none found in " + std::string(k.folder) + "/)";
  throw config::ConfigError(where, k.option, msg);
}

}  // namespace socsim::cli
