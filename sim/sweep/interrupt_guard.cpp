#include "sim/sweep/interrupt_guard.h"

#include <unistd.h>

#include <atomic>

namespace socsim::sweep {

namespace {

// Written by the handler, read by the sweep's worker threads: a lock-free atomic is safe in both.
std::atomic<int> g_received{0};
static_assert(std::atomic<int>::is_always_lock_free);

void on_signal(int sig) {
  if (g_received.exchange(sig) != 0) {
    // The second signal: the default action (termination), now.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  static const char msg[] =
      "\nsocsim: interrupted: finishing the runs in flight (each is journaled; `--resume` continues); "
      "press Ctrl-C again to stop at once\n";
  // write(2) is async-signal-safe; a failure to tell the user is not worth more than trying.
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_received.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a worker's write() or read() is resumed, not failed with EINTR
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

int InterruptGuard::received() { return g_received.load(); }

}  // namespace socsim::sweep
