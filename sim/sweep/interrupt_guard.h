#pragma once
// Ctrl-C (SIGINT) or SIGTERM during a sweep. The first signal asks the sweep to stop starting
// runs: the runs in flight finish and are journaled, so `--resume` continues where it stopped,
// and the sweep says so before it exits. A second signal ends the process at once (the default
// action), as a user pressing Ctrl-C twice expects; the journal still holds every finished run.
#include <csignal>

namespace socsim::sweep {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers for SIGINT and SIGTERM
  ~InterruptGuard();  // restores the ones before
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The signal received while a guard was installed, or 0.
  static int received();

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace socsim::sweep
