#pragma once
// A one-line progress bar for long commands (sweep), redrawn in place on stderr. Shown only when
// stderr is a terminal: in logs, CI and pipes it prints nothing, so outputs stay clean.
#include <chrono>
#include <cstddef>
#include <string>

namespace socsim::cli {

class ProgressBar {
 public:
  ProgressBar(std::string what, std::size_t total);  // enabled iff isatty(stderr)
  ProgressBar(std::string what, std::size_t total, bool enabled);
  ~ProgressBar();  // ends the line if anything was drawn
  void update(std::size_t done);
  bool enabled() const { return enabled_; }

 private:
  std::string what_;
  std::size_t total_;
  bool enabled_, drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

// "[#########.........] 12/40 runs  3.1 s, ~7.2 s left" (width characters of bar).
std::string progress_line(const std::string& what, std::size_t done, std::size_t total, double elapsed_s, int width = 30);

}  // namespace socsim::cli
