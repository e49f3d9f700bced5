#include "sim/config/longest_time.h"

namespace socsim::config {

namespace {

thread_local std::optional<TimeRead> t_longest;
thread_local std::string t_work;

}  // namespace

void note_time_read(const std::string& key, const std::string& text, const SourceLocation& where, Tick ticks) {
  if (!t_longest || ticks > t_longest->ticks) t_longest = TimeRead{key, text, where, ticks};
}

void note_run_work(std::string text) { t_work = std::move(text); }

void forget_times_read() {
  t_longest.reset();
  t_work.clear();
}

std::optional<TimeRead> longest_time_read() { return t_longest; }

std::string longest_time_hint() {
  const bool long_time = t_longest && t_longest->ticks >= kSecond;
  std::string hint;
  if (long_time) {
    std::string where;
    if (!t_longest->where.file.empty()) {
      where = " (" + t_longest->where.file;
      if (t_longest->where.line > 0) where += ":" + std::to_string(t_longest->where.line);
      where += ")";
    }
    hint = "; the longest duration in the inputs is " + t_longest->key + " = " + t_longest->text + where;
  }
  if (!t_work.empty()) {
    hint += "; the work asked for is " + t_work;
    // Or a rate: a bandwidth, clock or efficiency of the SoC small enough stretches even short work.
    if (!long_time) {
      hint += " (no duration in the inputs reaches a second: a smaller model, prompt, decode or batch fits, or a rate of the SoC file or --set "
              "(a bandwidth, clock or efficiency) set too low)";
    }
  }
  return hint;
}

}  // namespace socsim::config
