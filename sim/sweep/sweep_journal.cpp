#include "sim/sweep/sweep_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/config/config_error.h"
#include "sim/config/input_file.h"
#include "sim/core/write_fully.h"

namespace socsim::sweep {

namespace {

[[noreturn]] void bad(const std::filesystem::path& file, std::size_t line, const std::string& key, const std::string& msg) {
  throw config::ConfigError({file.string(), static_cast<int>(line), 0}, key, msg);
}

nlohmann::ordered_json header_json(const JournalHeader& h) {
  return {{"socsim_sweep_journal", 1},
          {"sweep", h.name},
          {"fingerprint", fmt::format("{:016x}", h.fingerprint)},
          {"shard", h.shard},
          {"metrics", h.metrics},
          {"reports", h.reports}};
}

// JSON text of `j`; bytes that are not UTF-8 (a path or name in an error message) become U+FFFD
// instead of throwing, so one odd message cannot stop a sweep.
std::string safe_dump(const nlohmann::ordered_json& j) { return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace); }

// Writes all of `text` with one write() where the kernel allows, then forces it to disk.
bool write_line(int fd, const std::string& text) { return write_fully(fd, text) && ::fdatasync(fd) == 0; }

}  // namespace

SweepJournal::SweepJournal(const std::filesystem::path& out_dir, const JournalHeader& header, bool resume, std::size_t runs_total,
                           std::chrono::steady_clock::duration sync_interval)
    : path_(out_dir / kFileName), metrics_(header.metrics), sync_interval_(sync_interval) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  const bool exists = std::filesystem::exists(path_, ec);
  std::uint64_t keep_bytes = 0;  // on resume: the journal up to its last complete line
  if (const auto why = config::input_file_problem(path_, {"a sweep journal", 0, false})) bad(path_, 0, "", *why);
  if (exists) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) bad(path_, 0, "", "cannot read the sweep journal" + config::errno_reason());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t complete = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    std::map<std::size_t, JournalEntry> by_run;
    std::size_t line_no = 0, pos = 0;
    bool have_header = false;
    while (pos < complete) {
      const std::size_t nl = text.find('\n', pos);
      const std::string line = text.substr(pos, nl - pos);
      pos = nl + 1;
      ++line_no;
      nlohmann::ordered_json j;
      try {
        j = nlohmann::ordered_json::parse(line);
      } catch (const nlohmann::json::exception&) {
        bad(path_, line_no, "", "not a JSON line of a sweep journal (edited or damaged? remove it to start over)");
      }
      if (!have_header) {
        if (!j.is_object() || !j.contains("socsim_sweep_journal")) bad(path_, line_no, "", "not a sweep journal (no header line)");
        have_header = true;
        if (!resume) {
          bad(path_, 0, "--out",
              "this folder holds the journal of a sweep (" + j.value("sweep", std::string("?")) +
                  "): add --resume to continue it without repeating finished runs, or choose another --out");
        }
        const auto want = header_json(header);
        for (const char* key : {"sweep", "fingerprint", "shard", "metrics"}) {
          if (j.value(key, nlohmann::ordered_json()) != want[key]) {
            bad(path_, line_no, key,
                "the journal is of another sweep or other inputs (" + std::string(key) + " " + j.value(key, nlohmann::ordered_json()).dump() +
                    ", this sweep: " + want[key].dump() +
                    "); a changed spec, SoC, model or workload file, or another socsim version, cannot resume it: choose another --out");
          }
        }
        // (Journals written before the key existed carry no reports: nothing to compare.)
        if (j.contains("reports") && j.at("reports") != want["reports"]) {
          const auto then = j.at("reports").is_string() ? j.at("reports").get<std::string>() : j.at("reports").dump();
          bad(path_, line_no, "--reports",
              then.empty() ? "the sweep being resumed wrote no reports: resume it without --reports / --report-dir"
                           : "the sweep being resumed wrote each run's reports to " + then +
                                 ": resume it with the same --reports / --report-dir, so every run has its reports");
        }
        continue;
      }
      JournalEntry e;
      try {
        const auto& run = j.at("run");
        // A negative or fractional number would wrap or truncate to another run's index.
        if (!run.is_number_unsigned()) bad(path_, line_no, "run", "expected a run index (a whole number from 0), got " + run.dump());
        e.run = run.get<std::size_t>();
        if (j.contains("error")) {
          e.error = j.at("error").get<std::string>();
        } else {
          const auto& m = j.at("metrics");
          if (!m.is_array() || m.size() != metrics_.size()) bad(path_, line_no, "metrics", "expected one value per metric of the sweep");
          for (const auto& v : m) e.metrics.push_back(v.is_null() ? std::nullopt : std::optional<double>(v.get<double>()));
        }
      } catch (const nlohmann::json::exception& x) {
        bad(path_, line_no, "", std::string("not a run line of a sweep journal: ") + x.what());
      }
      if (e.run >= runs_total) bad(path_, line_no, "run", "run " + std::to_string(e.run) + " is not in this sweep");
      by_run[e.run] = std::move(e);
    }
    if (!have_header) {
      if (!resume && !text.empty()) bad(path_, 0, "--out", "this folder holds an unreadable sweep journal: remove it or choose another --out");
    } else {
      resumed_ = true;
      keep_bytes = complete;
      for (auto& [run, e] : by_run) finished_.push_back(std::move(e));
    }
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) bad(path_, 0, "--out", std::string("cannot open the sweep journal for writing (") + std::strerror(errno) + ")");
  // A torn last line (a kill mid-write) goes; a fresh journal starts empty.
  if (::ftruncate(fd_, static_cast<off_t>(keep_bytes)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    bad(path_, 0, "--out", "cannot prepare the sweep journal (" + why + ")");
  }
  if (!resumed_ && !write_line(fd_, safe_dump(header_json(header)) + "\n")) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    // A new journal that holds no finished run is removed, or the next sweep into this --out
    // would be told to --resume a sweep that never ran.
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
    bad(path_, 0, "--out", "cannot write the sweep journal (" + why + ")");
  }
  if (!resumed_) ++syncs_;
  last_sync_ = std::chrono::steady_clock::now();
  flusher_ = std::thread([this] { flush_loop(); });
}

SweepJournal::~SweepJournal() {
  stop_flusher();
  if (fd_ < 0) return;
  if (unsynced_) (void)::fdatasync(fd_);  // best effort: a destructor cannot report (close() does)
  ::close(fd_);
}

void SweepJournal::stop_flusher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
}

void SweepJournal::flush_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (!unsynced_ || fd_ < 0) {
      wake_.wait(lock);
      continue;
    }
    const auto due = last_sync_ + sync_interval_;
    if (wake_.wait_until(lock, due, [this] { return stop_; })) break;
    if (unsynced_ && fd_ >= 0 && std::chrono::steady_clock::now() >= due) sync_locked();
  }
}

void SweepJournal::sync_locked() {
  if (!unsynced_ || fd_ < 0) return;
  last_sync_ = std::chrono::steady_clock::now();
  if (::fdatasync(fd_) != 0) {
    sync_errno_ = errno;
    return;
  }
  unsynced_ = false;
  ++syncs_;
}

void SweepJournal::throw_if_sync_failed_locked() {
  if (sync_errno_ == 0) return;
  const int e = sync_errno_;
  sync_errno_ = 0;
  bad(path_, 0, "--out", std::string("cannot flush the sweep journal to disk (") + std::strerror(e) + ")");
}

void SweepJournal::sync() {
  std::lock_guard<std::mutex> lock(mutex_);
  sync_locked();
  throw_if_sync_failed_locked();
}

void SweepJournal::close() {
  stop_flusher();
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0) return;
  sync_locked();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && sync_errno_ == 0) sync_errno_ = errno;
  throw_if_sync_failed_locked();
}

std::size_t SweepJournal::syncs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return syncs_;
}

void SweepJournal::append(const JournalEntry& entry) {
  nlohmann::ordered_json j = {{"run", entry.run}};
  if (!entry.error.empty()) {
    j["error"] = entry.error;
  } else {
    auto m = nlohmann::ordered_json::array();
    for (const auto& v : entry.metrics) m.push_back(v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json());
    j["metrics"] = m;
  }
  const std::string line = safe_dump(j) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  throw_if_sync_failed_locked();
  if (fd_ < 0) bad(path_, 0, "--out", "the sweep journal is closed");
  if (!write_fully(fd_, line)) bad(path_, 0, "--out", std::string("cannot append to the sweep journal (") + std::strerror(errno) + ")");
  unsynced_ = true;
  if (std::chrono::steady_clock::now() - last_sync_ >= sync_interval_) {
    sync_locked();
    throw_if_sync_failed_locked();
  } else {
    wake_.notify_one();  // the flusher syncs when the interval since the last sync ends
  }
}

void SweepJournal::remove() {
  stop_flusher();
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  unsynced_ = false;
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

}  // namespace socsim::sweep
