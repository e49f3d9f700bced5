#include "sim/cli/output_files.h"

#include <fstream>

#include "sim/config/config_error.h"

namespace socsim::cli {

void OutputFiles::write_all() const {
  for (const auto& [path, content] : files_) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream f(path, std::ios::binary);
    if (!f || !(f << content) || !f.flush()) {
      throw config::ConfigError({path.string(), 0, 0}, "", "cannot write output file");
    }
  }
}

std::vector<std::filesystem::path> OutputFiles::paths() const {
  std::vector<std::filesystem::path> v;
  for (const auto& f : files_) v.push_back(f.first);
  return v;
}

}  // namespace socsim::cli
