#include "sim/config/longest_time.h"

namespace socsim::config {

namespace {

thread_local std::optional<TimeRead> t_longest;

}  // namespace

void note_time_read(const std::string& key, const std::string& text, const SourceLocation& where, Tick ticks) {
  if (!t_longest || ticks > t_longest->ticks) t_longest = TimeRead{key, text, where, ticks};
}

void forget_times_read() { t_longest.reset(); }

std::optional<TimeRead> longest_time_read() { return t_longest; }

std::string longest_time_hint() {
  if (!t_longest || t_longest->ticks < kSecond) return "";
  std::string where;
  if (!t_longest->where.file.empty()) {
    where = " (" + t_longest->where.file;
    if (t_longest->where.line > 0) where += ":" + std::to_string(t_longest->where.line);
    where += ")";
  }
  return "; the longest duration in the inputs is " + t_longest->key + " = " + t_longest->text + where;
}

}  // namespace socsim::config
