#pragma once
// Ctrl-C (SIGINT) or SIGTERM during a sweep's runs. The first signal asks the sweep to stop
// starting runs: the runs in flight finish and are journaled, so `--resume` continues where it
// stopped, and the sweep says so. The process then ends by that same signal (die_by_signal, once
// the sweep's files are closed and its lock released), so a shell script or make sees that its
// child was interrupted and stops too, as it does for any other program.
//
// Repeats: a second SIGINT ends the process at once (a user pressing Ctrl-C twice). A SIGTERM
// after the first signal is ignored: schedulers send several (LSF's bkill: SIGINT, then SIGTERM
// 10 s later, then SIGKILL), and the runs in flight should get what time they are given.
// A signal that was ignored when the guard was installed (a background job of a non-interactive
// shell) stays ignored. SIGPIPE is ignored while the guard is installed: with `2>&1 | tee log`,
// Ctrl-C ends tee too, and the sweep's next message must not kill it before the journal is closed.
#include <csignal>

namespace socsim::sweep {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers for SIGINT, SIGTERM and SIGPIPE
  ~InterruptGuard();  // restores the ones before
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The first signal received while a guard was installed, or 0.
  static int received();

 private:
  struct sigaction old_int_ {}, old_term_ {}, old_pipe_ {};
  bool int_handled_ = false, term_handled_ = false;
};

// Ends the process by `sig`'s default action (termination, as if the signal had not been caught).
// Called by main() after a command returned InterruptedBy(sig), once every destructor has run.
[[noreturn]] void die_by_signal(int sig);

}  // namespace socsim::sweep
