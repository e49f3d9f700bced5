#include "sim/cli/sweep_run_reports.h"

#include <fmt/format.h>

#include <limits>

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
  if (ec || info.available == static_cast<std::uintmax_t>(-1)) return std::numeric_limits<std::uintmax_t>::max();
  return info.available;
}

void SweepRunReports::write(const RunResult& result, std::size_t index) {
  const auto dir = root_ / std::to_string(index);
  OutputFiles files;
  add_report_files(result, dir, files);
  const std::uintmax_t need = files.bytes();
  const auto out_of_room = [&](std::uintmax_t free) {
    disk_full_ = true;
    return fmt::format(
        "this run's reports take {:.1f} MB and the disk holding {} has {:.1f} MB free (a sweep leaves {} MiB free): "
        "the sweep starts no more runs. Free some space, or give {}no {}, then the same command with --resume",
        megabytes(need), dir.string(), megabytes(free), kKeepFree >> 20, summary_ ? "" : "--trace-detail summary (far smaller traces) or ",
        option_);
  };
  const config::SourceLocation command_line{"command line", 0, 0};
  const std::uintmax_t before = available_bytes(dir);
  if (before < need || before - need < kKeepFree) throw config::ConfigError(command_line, option_, "not written: " + out_of_room(before));
  try {
    files.write_all();
  } catch (const config::ConfigError& e) {
    // Another writer filled the disk meanwhile (another run of this sweep, another program):
    // the write's own message (a full disk) stands, and the sweep stops as above.
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

}  // namespace socsim::cli
