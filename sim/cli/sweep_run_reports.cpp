#include "sim/cli/sweep_run_reports.h"

#include <fmt/format.h>

#include <limits>
#include <mutex>

#include "sim/cli/output_files.h"
#include "sim/config/config_error.h"

namespace socsim::cli {

namespace {

double megabytes(std::uintmax_t bytes) { return static_cast<double>(bytes) / 1e6; }

}  // namespace

std::uintmax_t available_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  if (ec) return std::numeric_limits<std::uintmax_t>::max();
  // The folder may not exist yet (runs/<n>/ is created by the write): its nearest ancestor that
  // does is on the same disk, unless a mount point is created on the way (it cannot be).
  while (!std::filesystem::exists(p, ec) && p.has_relative_path()) p = p.parent_path();
  const auto info = std::filesystem::space(p, ec);
  // A file system that reports no capacity (some FUSE mounts) says nothing about its room.
  if (ec || info.capacity == 0 || info.available == static_cast<std::uintmax_t>(-1)) return std::numeric_limits<std::uintmax_t>::max();
  return info.available;
}

void SweepRunReports::write(const RunResult& result, std::size_t index) {
  const auto dir = root_ / std::to_string(index);
  OutputFiles files;
  add_report_files(result, dir, files);
  const std::uintmax_t need = files.bytes();
  const auto out_of_room = [&](std::uintmax_t free) {
    disk_full_ = true;
    // (The journal records whether reports are written, so a resume keeps the same report option.)
    return fmt::format(
        "this run's reports take {:.1f} MB and the disk holding {} has {:.1f} MB free (a sweep leaves {} MiB free): "
        "the sweep starts no more runs. Free some space{}, then the same command with --resume",
        megabytes(need), dir.string(), megabytes(free), kKeepFree >> 20, summary_ ? "" : " or add --trace-detail summary (far smaller traces)");
  };
  const config::SourceLocation command_line{"command line", 0, 0};
  {
    // Runs finishing at once (--jobs) each see the same free space: the bytes the others are
    // writing count as taken.
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uintmax_t free = available_bytes(dir);
    const std::uintmax_t taken = reserved_ + need;
    if (free < taken || free - taken < kKeepFree) throw config::ConfigError(command_line, option_, "not written: " + out_of_room(free));
    reserved_ += need;
  }
  struct Release {
    SweepRunReports& self;
    std::uintmax_t bytes;
    ~Release() {
      std::lock_guard<std::mutex> lock(self.mutex_);
      self.reserved_ -= bytes;
    }
  } release{*this, need};
  try {
    files.write_all();
  } catch (const config::ConfigError& e) {
    // Another program filled the disk meanwhile: the write's own message (a full disk) stands,
    // and the sweep stops as above.
    const std::uintmax_t after = available_bytes(dir);
    if (after < need || after - need < kKeepFree) throw config::ConfigError(e.location(), e.key(), e.message() + "; " + out_of_room(after));
    throw;
  }
  bytes_ += need;
  ++runs_;
}

std::string SweepRunReports::written() const {
  return fmt::format("{} runs' reports, {:.1f} MB", runs_.load(), megabytes(bytes_.load()));
}

void SweepRunReports::check_not_inputs(const std::vector<const sweep::SweepRun*>& runs, const std::vector<NamedInput>& inputs) const {
  for (const auto* run : runs) {
    for (const char* name : {"report.json", "trace.json", "report.html"}) check_output_not_input(option_, root_ / std::to_string(run->index) / name, inputs);
  }
}

}  // namespace socsim::cli
