#pragma once
// Output files gathered in memory and written together at the end of a command, so a command that
// fails part-way writes nothing (contract: nothing is written on bad input).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace socsim::cli {

class OutputFiles {
 public:
  void add(std::filesystem::path path, std::string content) { files_.emplace_back(std::move(path), std::move(content)); }
  // Creates parent folders; writes every file to a temporary beside it, then renames them over
  // their targets (atomic), so a failure leaves no partial file and earlier outputs intact; throws
  // config::ConfigError (exit 2) naming a path it cannot write.
  void write_all() const;
  std::vector<std::filesystem::path> paths() const;

 private:
  std::vector<std::pair<std::filesystem::path, std::string>> files_;
};

}  // namespace socsim::cli
