#pragma once
// While a DistinctWarnings session is open, each distinct log message is printed once: a sweep
// prepares and simulates thousands of runs of one spec, and a warning every run gives (a seed that
// draws nothing, a model without a calibration file) buried the progress lines (100,000 of one
// warning in a dry run). The filter wraps the default logger's sinks once, at startup (before any
// thread logs: swapping sinks later would race with threads that log, e.g. Python callers);
// sessions only switch it on and off.
#include <cstddef>

namespace socsim::cli {

// Wraps the default logger's sinks in the filter; call once, after the logger is set up and
// before other threads start. Without it a session filters nothing.
void install_distinct_warnings_filter();

class DistinctWarnings {
 public:
  DistinctWarnings();   // opens a session (a nested or concurrent one is a no-op)
  ~DistinctWarnings();  // closes it
  DistinctWarnings(const DistinctWarnings&) = delete;
  DistinctWarnings& operator=(const DistinctWarnings&) = delete;

  // Messages left out because they had been printed already in this session.
  std::size_t repeats() const;

 private:
  bool owner_ = false;
};

}  // namespace socsim::cli
