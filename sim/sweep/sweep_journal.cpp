#include "sim/sweep/sweep_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/config/config_error.h"
#include "sim/config/input_file.h"
#include "sim/config/unique_key_json.h"
#include "sim/core/write_fully.h"
#include "sim/sweep/input_changes.h"

namespace socsim::sweep {

namespace {

[[noreturn]] void bad(const std::filesystem::path& file, std::size_t line, const std::string& key, const std::string& msg) {
  throw config::ConfigError({file.string(), static_cast<int>(line), 0}, key, msg);
}

nlohmann::ordered_json header_json(const JournalHeader& h) {
  nlohmann::ordered_json j = {{"socsim_sweep_journal", 1},
                              {"sweep", h.name},
                              {"fingerprint", fmt::format("{:016x}", h.fingerprint)},
                              {"shard", h.shard},
                              {"metrics", h.metrics},
                              {"reports", h.reports}};
  // Left out past kMaxInputsBytes: the header must stay a line the reader takes (kMaxLineBytes); a
  // refused resume then gives the fingerprints only.
  if (auto in = inputs_json(h.inputs); !in.is_null()) j["inputs"] = std::move(in);
  return j;
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
    std::map<std::size_t, JournalEntry> by_run;
    std::map<std::size_t, std::size_t> finished_line;  // run -> the line of its latest entry
    std::size_t line_no = 0;
    std::uint64_t complete = 0;  // bytes up to the end of the last complete line
    bool have_header = false;
    std::string partial;         // a line not yet ended (the last one may be torn by a kill)
    const auto take_line = [&](const std::string& line) {
      ++line_no;
      complete += line.size() + 1;
      nlohmann::ordered_json j;
      try {
        j = config::parse_ordered_json_unique_keys(line);  // a key given twice (an edit) is refused, not resolved
      } catch (const config::DuplicateJsonKey& e) {
        bad(path_, line_no, e.key(), "given twice in one line (edited? remove the journal to start over)");
      } catch (const nlohmann::json::exception&) {
        bad(path_, line_no, "", "not a JSON line of a sweep journal (edited or damaged? remove it to start over)");
      }
      if (!have_header) {
        have_header = true;
        check_header(j, line_no, header, resume);
        return;
      }
      JournalEntry e = run_line(j, line_no);
      if (e.run >= runs_total) bad(path_, line_no, "run", "run " + std::to_string(e.run) + " is not in this sweep");
      // A failed run is tried again on resume (its later line wins); a finished one never is, so a
      // second line for it is an edit, and which result is true cannot be told.
      if (const auto it = by_run.find(e.run); it != by_run.end() && it->second.error.empty()) {
        bad(path_, line_no, "run", "run " + std::to_string(e.run) + " finished at line " + std::to_string(finished_line[e.run]) +
                                       " and is recorded again (edited? remove the journal to start over)");
      }
      finished_line[e.run] = line_no;
      by_run[e.run] = std::move(e);
    };
    // Read in blocks, a line at a time: a journal is never held whole (a million runs' lines), and
    // a line longer than any socsim writes is refused as soon as it is seen.
    std::vector<char> block(1 << 20);
    while (in) {
      in.read(block.data(), static_cast<std::streamsize>(block.size()));
      const std::size_t got = static_cast<std::size_t>(in.gcount());
      std::size_t pos = 0;
      while (pos < got) {
        const char* nl = static_cast<const char*>(std::memchr(block.data() + pos, '\n', got - pos));
        const std::size_t end = nl == nullptr ? got : static_cast<std::size_t>(nl - block.data());
        partial.append(block.data() + pos, end - pos);
        if (partial.size() > kMaxLineBytes) {
          bad(path_, line_no + 1, "", fmt::format("a line longer than {} MiB: not a sweep journal's (edited or damaged? remove it to start over)",
                                                  kMaxLineBytes >> 20));
        }
        if (nl == nullptr) break;
        take_line(partial);
        partial.clear();
        pos = end + 1;
      }
    }
    // A read that failed part-way must not pass for the journal's end: the lines after it would be
    // truncated away below.
    if (in.bad()) bad(path_, 0, "", "cannot read the sweep journal" + config::errno_reason());
    if (!have_header) {
      // A journal torn while its header was written (a kill before the first run) holds a
      // beginning of a header (this sweep's, or one whose recorded inputs differ): no finished
      // run to keep, so it starts afresh. Anything else is not socsim's.
      const std::string mine = safe_dump(header_json(header));
      const bool torn_header = line_no == 0 && ((partial.size() < mine.size() && mine.compare(0, partial.size(), partial) == 0) ||
                                                partial.rfind("{\"socsim_sweep_journal\":", 0) == 0);
      if (!partial.empty() && !torn_header) {
        bad(path_, 0, "--out", "this folder holds a file named " + std::string(kFileName) +
                                   " that is not a sweep journal (no header line): remove it or choose another --out");
      }
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

void SweepJournal::check_header(const nlohmann::ordered_json& j, std::size_t line_no, const JournalHeader& header, bool resume) const {
  if (!j.is_object() || !j.contains("socsim_sweep_journal")) {
    bad(path_, line_no, "", "not a sweep journal (no header line): remove it or choose another --out");
  }
  if (!resume) {
    const std::string name = j.contains("sweep") && j.at("sweep").is_string() ? j.at("sweep").get<std::string>() : "?";
    bad(path_, 0, "--out", "this folder holds the journal of a sweep (" + name +
                               "): add --resume to continue it without repeating finished runs, or choose another --out");
  }
  const auto want = header_json(header);
  // The format's version: a journal of another (a later socsim's) is not read as this one.
  if (j.at("socsim_sweep_journal") != want.at("socsim_sweep_journal")) {
    bad(path_, line_no, "socsim_sweep_journal",
        "a journal of format " + j.at("socsim_sweep_journal").dump() + ", this socsim reads format " + want.at("socsim_sweep_journal").dump() + ": resume it with the socsim that wrote it, or choose another --out");
  }
  // The name, shard and metrics first: each is named as itself (the fingerprint covers them too).
  for (const char* key : {"sweep", "shard", "metrics", "fingerprint"}) {
    if (j.value(key, nlohmann::ordered_json()) == want[key]) continue;
    const std::string changed = key == std::string("fingerprint") && j.contains("inputs") ? changed_inputs(j.at("inputs"), want.value("inputs", nlohmann::ordered_json())) : "";
    if (!changed.empty()) {
      bad(path_, line_no, "inputs",
          "the journal was written from other inputs: " + changed + "; its runs cannot be mixed with these: restore them, or choose another --out");
    }
    // A journal without the parts: written before socsim recorded them, when the fingerprint was
    // made otherwise (or past the parts' size bound).
    const bool unrecorded = key == std::string("fingerprint") && !j.contains("inputs");
    bad(path_, line_no, key,
        "the journal is of another sweep or other inputs (" + std::string(key) + " " + j.value(key, nlohmann::ordered_json()).dump() +
            ", this sweep: " + want[key].dump() + "); changed runs, metrics, SoC, model or workload files, or another socsim version" +
            (unrecorded ? " (this journal does not record which: an earlier socsim's, or of thousands of input files)" : "") +
            ", cannot resume it: choose another --out");
  }
  // (Journals written before the key existed carry no reports: nothing to compare.)
  if (j.contains("reports") && j.at("reports") != want["reports"]) {
    const auto then = j.at("reports").is_string() ? j.at("reports").get<std::string>() : j.at("reports").dump();
    bad(path_, line_no, "--reports",
        then.empty() ? "the sweep being resumed wrote no reports: resume it without --reports / --report-dir"
                     : "the sweep being resumed wrote each run's reports to " + then +
                           ": resume it with the same --reports / --report-dir, so every run has its reports");
  }
}

JournalEntry SweepJournal::run_line(const nlohmann::ordered_json& j, std::size_t line_no) const {
  // Exactly what append() writes: a run and either its error message or one value per metric.
  if (!j.is_object()) bad(path_, line_no, "", "expected a run's line {\"run\": N, \"metrics\": [...]} or {\"run\": N, \"error\": \"...\"}, got " + j.dump());
  for (const auto& [key, value] : j.items()) {
    if (key != "run" && key != "metrics" && key != "error") bad(path_, line_no, key, "not a key of a sweep journal's run line (run, metrics or error)");
  }
  if (j.contains("metrics") == j.contains("error")) bad(path_, line_no, "", "expected either metrics (a finished run) or error (a failed one)");
  JournalEntry e;
  try {
    const auto& run = j.at("run");
    // A negative or fractional number would wrap or truncate to another run's index.
    if (!run.is_number_unsigned()) bad(path_, line_no, "run", "expected a run index (a whole number from 0), got " + run.dump());
    e.run = run.get<std::size_t>();
    if (j.contains("error")) {
      e.error = j.at("error").get<std::string>();
      // An empty message would read as a finished run without metrics.
      if (e.error.empty()) bad(path_, line_no, "error", "expected the run's failure message, got an empty one");
    } else {
      const auto& m = j.at("metrics");
      if (!m.is_array() || m.size() != metrics_.size()) bad(path_, line_no, "metrics", "expected one value per metric of the sweep");
      for (const auto& v : m) {
        if (v.is_null()) {
          e.metrics.push_back(std::nullopt);
          continue;
        }
        // What append() writes is a report's number (a string or bool read as one said only "type_error").
        if (!v.is_number() || !std::isfinite(v.get<double>())) bad(path_, line_no, "metrics", "expected numbers or null, got " + v.dump());
        e.metrics.push_back(v.get<double>());
      }
    }
  } catch (const nlohmann::json::exception& x) {
    bad(path_, line_no, "", std::string("not a run line of a sweep journal: ") + x.what());
  }
  return e;
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
    // A message past what the reader takes in a line (kMaxLineBytes) is cut, on a character's start.
    constexpr std::size_t kMaxError = 64 * 1024;
    std::string error = entry.error;
    if (error.size() > kMaxError) {
      std::size_t cut = kMaxError;
      while (cut > 0 && (static_cast<unsigned char>(error[cut]) & 0xC0) == 0x80) --cut;
      error = error.substr(0, cut) + " ... (cut: " + std::to_string(entry.error.size()) + " bytes)";
    }
    j["error"] = error;
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
