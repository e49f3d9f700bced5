#pragma once
// One sweep run's report.json, trace.json and report.html (--reports, --report-dir), written as
// the run finishes only when they fit on the disk with room to spare: a sweep of thousands of
// runs, each with a trace of up to ~100 MB, must not fill the disk (other programs, the sweep's
// own journal and results need room too). When they do not fit, the sweep stops starting runs
// (the caller reads disk_full()) and says how to go on.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "sim/cli/output_files.h"
#include "sim/cli/run_setup.h"
#include "sim/sweep/sweep_plan.h"

namespace socsim::cli {

class SweepRunReports {
 public:
  // Space left free on the reports' disk after a run's reports are written.
  static constexpr std::uintmax_t kKeepFree = 64ull << 20;

  // `option`: --reports or --report-dir, named in the errors; `summary`: the traces are already
  // --trace-detail summary (the advice then leaves it out).
  SweepRunReports(std::filesystem::path root, std::string option, bool summary)
      : root_(std::move(root)), option_(std::move(option)), summary_(summary) {}

  // Writes run `index`'s reports under root/<index>/; throws config::ConfigError (the run is
  // recorded as failed) when they cannot be written, and then, when the disk lacks the room,
  // also marks the sweep to stop.
  void write(const RunResult& result, std::size_t index);
  bool disk_full() const { return disk_full_.load(); }
  // "N runs' reports, X MB" for the sweep's summary.
  std::string written() const;
  const std::filesystem::path& root() const { return root_; }
  // Before anything runs: no run's report (root/<index>/report.json, trace.json, report.html) is
  // one of `inputs` (a spec, model or SoC file there was replaced by a report, exit 0).
  void check_not_inputs(const std::vector<const sweep::SweepRun*>& runs, const std::vector<NamedInput>& inputs) const;

 private:
  std::filesystem::path root_;
  std::string option_;
  bool summary_;
  std::atomic<bool> disk_full_{false};
  std::mutex mutex_;
  std::uintmax_t reserved_ = 0;  // bytes of reports being written now (guarded by mutex_)
  std::atomic<std::uintmax_t> bytes_{0};
  std::atomic<std::size_t> runs_{0};
};

// Bytes the calling process may still write on the disk holding `path` (its nearest existing
// folder); nullopt-like UINTMAX_MAX when that cannot be told (the write itself then decides).
std::uintmax_t available_bytes(const std::filesystem::path& path);

}  // namespace socsim::cli
