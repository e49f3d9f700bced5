#pragma once
// An exclusive lock on a sweep's output folder (OUT/.lock, flock), held while the sweep runs:
// two sweeps into one --out would overwrite each other's journal and results. The kernel
// releases it when the process ends, however it ends, so a killed sweep never leaves it stuck;
// a sweep that ends (finished, failed or interrupted) also removes the file.
#include <filesystem>

namespace socsim::sweep {

class OutLock {
 public:
  // Creates the folder if needed; throws config::ConfigError (exit 2) naming --out when another
  // process holds the lock (with its pid) or the lock file cannot be made.
  explicit OutLock(const std::filesystem::path& out_dir);
  ~OutLock();
  OutLock(const OutLock&) = delete;
  OutLock& operator=(const OutLock&) = delete;

 private:
  int fd_ = -1;
  std::filesystem::path path_;  // set once held: removed when released
};

}  // namespace socsim::sweep
