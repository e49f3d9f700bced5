#include "sim/cli/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace socsim::cli {

std::string progress_line(const std::string& what, std::size_t done, std::size_t total, double elapsed_s, int width) {
  const double f = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(f * width);
  std::string bar = "[" + std::string(static_cast<std::size_t>(filled), '#') + std::string(static_cast<std::size_t>(width - filled), '.') + "] ";
  std::string s = fmt::format("{}{}/{} {}  {:.1f} s", width > 0 ? bar : "", done, total, what, elapsed_s);
  if (done > 0 && done < total) s += fmt::format(", ~{:.1f} s left", elapsed_s / static_cast<double>(done) * static_cast<double>(total - done));
  return s;
}

ProgressBar::ProgressBar(std::string what, std::size_t total, NotATerminal otherwise, double log_after_s, double log_every_s)
    : ProgressBar(std::move(what), total, isatty(STDERR_FILENO) != 0) {
  log_lines_ = !enabled_ && otherwise == NotATerminal::kLogLines;
  log_after_s_ = log_after_s;
  log_every_s_ = log_every_s;
}

ProgressBar::ProgressBar(std::string what, std::size_t total, bool enabled)
    : what_(std::move(what)), total_(total), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputc('\n', stderr);
}

void ProgressBar::update(std::size_t done) {
  if (!enabled_ && !log_lines_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (log_lines_) {
    if (elapsed < log_after_s_ || (logged_ && since_last < log_every_s_)) return;
    std::fprintf(stderr, "socsim: %s\n", progress_line(what_, done, total_, elapsed, 0).c_str());
    std::fflush(stderr);
    logged_ = true;
    last_ = now;
    return;
  }
  // A million quick updates (a sweep's check of every run) would spend their time drawing.
  if (drawn_ && done != total_ && since_last < 0.1) return;
  last_ = now;
  // \r + clear-to-end-of-line: redraw in place.
  std::fprintf(stderr, "\r%s\033[K", progress_line(what_, done, total_, elapsed).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace socsim::cli
