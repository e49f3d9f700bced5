#pragma once
// A fresh, empty scratch folder for one test process.
//
// ctest runs tests in parallel, each in its own process; a folder named only by
// the test's tag would be shared (and removed under another test's feet), so the
// name carries the process id. Folders are removed when the process exits.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace socsim::test {

class ScratchRegistry {
 public:
  static ScratchRegistry& instance() {
    static ScratchRegistry r;
    return r;
  }
  std::filesystem::path fresh(const std::string& prefix, const std::string& name) {
    auto d = std::filesystem::temp_directory_path() /
             (prefix + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    dirs_.push_back(d);
    return d;
  }
  ~ScratchRegistry() {
    for (const auto& d : dirs_) {
      std::error_code ec;  // best effort: a failed cleanup must not fail the test
      std::filesystem::remove_all(d, ec);
    }
  }

 private:
  std::vector<std::filesystem::path> dirs_;
};

inline std::filesystem::path fresh_scratch_dir(const std::string& prefix, const std::string& name) {
  return ScratchRegistry::instance().fresh(prefix, name);
}

}  // namespace socsim::test
