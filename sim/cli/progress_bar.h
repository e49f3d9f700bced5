#pragma once
// A one-line progress bar for long commands (sweep), redrawn in place on stderr when stderr is a
// terminal (at most ten times a second). Elsewhere (logs, CI, pipes, a Slurm job's output) it
// prints nothing by default, or, with NotATerminal::kLogLines, a plain line after 10 s and then
// every 30 s, so work that lasts hours is never silent there either.
#include <chrono>
#include <cstddef>
#include <string>

namespace socsim::cli {

enum class NotATerminal { kSilent, kLogLines };

class ProgressBar {
 public:
  // enabled iff isatty(stderr)
  ProgressBar(std::string what, std::size_t total, NotATerminal otherwise = NotATerminal::kSilent, double log_after_s = 10,
              double log_every_s = 30);
  ProgressBar(std::string what, std::size_t total, bool enabled);
  ~ProgressBar();  // ends the line if anything was drawn
  void update(std::size_t done);
  bool enabled() const { return enabled_; }

 private:
  std::string what_;
  std::size_t total_;
  bool enabled_, drawn_ = false;
  bool log_lines_ = false, logged_ = false;
  double log_after_s_ = 10, log_every_s_ = 30;
  std::chrono::steady_clock::time_point start_, last_;
};

// "[#########.........] 12/40 runs  3.1 s, ~7.2 s left" (width characters of bar; 0: no bar).
std::string progress_line(const std::string& what, std::size_t done, std::size_t total, double elapsed_s, int width = 30);

}  // namespace socsim::cli
