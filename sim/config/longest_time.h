#pragma once
// The longest duration a thread has read from its inputs (SoC file, --set, workload), so that a
// simulated clock passing 64-bit picoseconds can say which input asked for it: "simulated time
// overflows" alone leaves the user to guess among a hundred parameters. Thread-local: a sweep's
// runs prepare and simulate on their own threads.
#include <optional>
#include <string>

#include "sim/config/config_error.h"
#include "sim/core/time.h"

namespace socsim::config {

struct TimeRead {
  std::string key;   // dotted key
  std::string text;  // as written
  SourceLocation where;
  Tick ticks = 0;
};

// Called by Section::time for every value it reads; keeps the longest.
void note_time_read(const std::string& key, const std::string& text, const SourceLocation& where, Tick ticks);
// The work a run asks for ("--model m.json (about 5.2e+12 parameters, 1000 layers), --prompt 100000
// ..."), which the hint names when no duration in the inputs explains an overflow.
void note_run_work(std::string text);
// Starts afresh (each run's setup calls it before reading its inputs); forgets the work too.
void forget_times_read();
std::optional<TimeRead> longest_time_read();
// "; the longest duration in the inputs is gpu.submit = 9000000 s (soc.yaml:70)" when one reaches a
// second, then "; the work asked for is <note_run_work's text>" (saying, when no duration reaches a
// second, that the work is what overflows), or "" when neither is known.
std::string longest_time_hint();

}  // namespace socsim::config
