#pragma once
// The watchdog's verdict when a run cannot finish: a deadlock (no event left while processes
// wait: a dependency that can never be met) or no progress (events keep firing at one instant:
// a livelock). Either is an internal error (exit 1), reported with each unit's state, the
// executor's jobs, the waiting processes and the pending events, so the cycle can be found.
#include <stdexcept>
#include <string>

#include "sim/core/simulator.h"
#include "sim/hw/soc.h"
#include "sim/runtime/executor.h"

namespace socsim::runtime {

class WatchdogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The report's text; `ex` may be null (a run with no executor).
std::string watchdog_report(RunResult why, Simulator& sim, hw::Soc& soc, const Executor* ex);

// Throws WatchdogError with the report unless `r` is kIdle.
void check_run_finished(RunResult r, Simulator& sim, hw::Soc& soc, const Executor* ex);

}  // namespace socsim::runtime
