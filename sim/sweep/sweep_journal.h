#pragma once
// A sweep's journal, OUT/journal.jsonl: what makes a long sweep survive an interrupt, a failing
// run or a crash. The first line names the sweep (its fingerprint, shard and metrics); then each
// run, as it finishes, appends one line with its metrics or its error, written in one call (so a
// killed process loses nothing the kernel accepted). Lines are forced to disk (fdatasync) at most
// once per sync interval: a line that comes an interval or more after the last sync is synced at
// once, a line that comes sooner by a flusher thread when the interval ends, and the rest at
// close(). A synchronous flush per run would bound a sweep of many short runs on a network file
// system by its round trips; a crash of the whole machine costs at most the last interval's runs,
// which --resume simulates again. A failed sync is reported by the next append(), sync() or close().
// `sweep --resume` reads it back and simulates only the runs it lacks. A line cut short by a kill
// (the last one) is dropped on resume.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace socsim::sweep {

struct JournalHeader {
  std::string name;
  std::uint64_t fingerprint = 0;  // SweepResults::fingerprint: spec, runs, input files, version
  std::string shard;              // "I/N"
  std::vector<std::string> metrics;
  // Where each run's report folder goes ("" for none): a resume must write the rest's alike, or
  // the folder of reports would hold some runs only.
  std::string reports;
  // The fingerprint's parts, each (what, its hash): a resume refused names the parts that differ
  // (cli/sweep_fingerprint.h). Journals written before it have none.
  std::vector<std::pair<std::string, std::string>> inputs;
};

struct JournalEntry {
  std::size_t run = 0;
  std::vector<std::optional<double>> metrics;  // one per header metric (when no error)
  std::string error;                           // the run's failure message; empty when it finished
};

class SweepJournal {
 public:
  static constexpr const char* kFileName = "journal.jsonl";
  // The longest line a journal may hold: a run's line is its metrics or its error message.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  // Opens `out_dir`/journal.jsonl. Without `resume`, a journal already there is an error (exit 2:
  // finished work is never thrown away; --resume continues it); a new journal gets its header.
  // With `resume`, an existing journal's header must match `header` (else exit 2 naming what
  // differs) and its entries become finished(); a missing one is started afresh. Entries of runs
  // outside `runs_total`, malformed lines (other than a torn last line) are exit 2 with file:line.
  SweepJournal(const std::filesystem::path& out_dir, const JournalHeader& header, bool resume, std::size_t runs_total,
               std::chrono::steady_clock::duration sync_interval = std::chrono::seconds(1));
  ~SweepJournal();
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;

  // Entries read on resume, one per run (a run recorded twice keeps its last line).
  const std::vector<JournalEntry>& finished() const { return finished_; }
  bool resumed() const { return resumed_; }
  const std::filesystem::path& path() const { return path_; }

  // Thread-safe. Throws config::ConfigError (exit 2) when the line cannot be written.
  void append(const JournalEntry& entry);
  // Forces what was appended to disk now; throws config::ConfigError (exit 2) when it cannot.
  void sync();
  // Syncs and closes the journal, throwing config::ConfigError when either fails (the journal is
  // the record of a sweep with failed runs: a lost line must not pass in silence). The destructor
  // does the same on its own, best effort.
  void close();
  // Deletes the journal (a sweep that completed without failures: results.json is the record).
  void remove();
  // fdatasync calls so far (the header's included): how often the journal went to disk.
  std::size_t syncs() const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  bool resumed_ = false;
  std::vector<JournalEntry> finished_;
  std::vector<std::string> metrics_;
  std::chrono::steady_clock::duration sync_interval_;
  std::chrono::steady_clock::time_point last_sync_;
  bool unsynced_ = false;  // lines written since the last fdatasync
  std::size_t syncs_ = 0;
  int sync_errno_ = 0;     // a failed background sync, reported by the next call
  bool stop_ = false;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::thread flusher_;

  // The reading of an existing journal (resume): its first line, then each run's line; both throw
  // config::ConfigError naming the journal's line.
  void check_header(const nlohmann::ordered_json& j, std::size_t line, const JournalHeader& header, bool resume) const;
  JournalEntry run_line(const nlohmann::ordered_json& j, std::size_t line) const;
  void flush_loop();
  void sync_locked();                 // fdatasync if unsynced; errno into sync_errno_ on failure
  void throw_if_sync_failed_locked();
  void stop_flusher();
};

}  // namespace socsim::sweep
