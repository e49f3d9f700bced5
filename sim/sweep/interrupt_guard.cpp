#include "sim/sweep/interrupt_guard.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace socsim::sweep {

namespace {

// Written by the handler, read by the sweep's worker threads: a lock-free atomic is safe in both.
std::atomic<int> g_received{0};
static_assert(std::atomic<int>::is_always_lock_free);

void say(const char* msg, std::size_t n) {
  // write(2) is async-signal-safe; a failure to tell the user (EPIPE: the terminal's tee is gone)
  // is not worth more than trying.
  [[maybe_unused]] const ssize_t w = ::write(STDERR_FILENO, msg, n);
}

void on_signal(int sig) {
  int expected = 0;
  if (g_received.compare_exchange_strong(expected, sig)) {
    static const char msg[] =
        "\nsocsim: interrupted: finishing the runs in flight (each is journaled; `--resume` continues); "
        "press Ctrl-C again to stop at once\n";
    say(msg, sizeof msg - 1);
    return;
  }
  if (sig == SIGINT) {
    // A second Ctrl-C: the default action (termination), now. The journal holds every finished run.
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
  // A repeated SIGTERM: ignored (the runs in flight go on; a scheduler that means it sends SIGKILL).
}

// Installs on_signal for `sig` unless it was ignored on entry; `old` receives the previous action.
bool install(int sig, struct sigaction& old) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a worker's write() or read() is resumed, not failed with EINTR
  if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) return false;
  return sigaction(sig, &sa, nullptr) == 0;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_received.store(0);
  int_handled_ = install(SIGINT, old_int_);
  term_handled_ = install(SIGTERM, old_term_);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &old_pipe_);
}

InterruptGuard::~InterruptGuard() {
  if (int_handled_) sigaction(SIGINT, &old_int_, nullptr);
  if (term_handled_) sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGPIPE, &old_pipe_, nullptr);
}

int InterruptGuard::received() { return g_received.load(); }

void die_by_signal(int sig) {
  std::fflush(nullptr);
  std::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  std::raise(sig);
  std::_Exit(128 + sig);  // only if the signal did not end the process
}

}  // namespace socsim::sweep
