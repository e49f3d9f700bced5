#pragma once
// The host process's memory, for the guard that stops a run before it takes the machine's memory
// (ScopedHostMemoryLimit below, checked by Simulator::run and Plan::add): a long decode keeps work
// per simulated token, and an operating system's out-of-memory killer would end the run without a word.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace socsim {

// Resident set size of this process in bytes (Linux /proc/self/statm); 0 when unknown.
std::uint64_t resident_bytes();
// Physical memory of the machine in bytes; 0 when unknown.
std::uint64_t physical_memory_bytes();
// The memory limit of this process's control group (a container, a Slurm job, a systemd unit):
// the least memory.max (cgroup v2) or memory.limit_in_bytes (v1) from its group up to the root;
// 0 when there is none. Read from `proc_self_cgroup` (the text of /proc/self/cgroup) under
// `cgroup_root` (/sys/fs/cgroup), so tests can give a tree of their own.
std::uint64_t cgroup_memory_limit(const std::string& proc_self_cgroup, const std::string& cgroup_root);
// What this process may use: the machine's memory, or its control group's limit when lower; 0
// when neither is known.
std::uint64_t usable_memory_bytes();

// The limit for work on this thread (a sweep runs several simulations at once, each on its own
// thread; the resident memory is the whole process's). 0 = none. Set for a scope by
// ScopedHostMemoryLimit; Simulator::run and Plan::add check it as they grow.
std::uint64_t thread_host_memory_limit();
class ScopedHostMemoryLimit {
 public:
  explicit ScopedHostMemoryLimit(std::uint64_t bytes);
  ~ScopedHostMemoryLimit();
  ScopedHostMemoryLimit(const ScopedHostMemoryLimit&) = delete;
  ScopedHostMemoryLimit& operator=(const ScopedHostMemoryLimit&) = delete;

 private:
  std::uint64_t previous_;
};
// Throws HostMemoryExceeded when this thread has a limit and the process's resident memory is past it.
// It is also where long work looks for a request to stop (ScopedInterruptPoll below).
void check_host_memory();

// A function the checks above call on this thread first, for the scope: it throws to stop the
// work (the Python module's raises KeyboardInterrupt when Ctrl-C was pressed, since Python only
// sees a signal when it holds the interpreter, which a simulation releases). The checks run as
// the event loop and the plan grow and as functional mode computes each layer.
// Whether check_host_memory() has anything to do on this thread (a limit or a poll).
bool host_checks_active();
class ScopedInterruptPoll {
 public:
  explicit ScopedInterruptPoll(void (*poll)());
  ~ScopedInterruptPoll();
  ScopedInterruptPoll(const ScopedInterruptPoll&) = delete;
  ScopedInterruptPoll& operator=(const ScopedInterruptPoll&) = delete;

 private:
  void (*previous_)();
};
// The same before allocating `bytes` more: throws when the resident memory plus them would pass
// this thread's limit (a single tensor of a huge batch would otherwise take the host's memory
// between two checks).
void check_host_memory_for(std::uint64_t bytes);

// Work that keeps memory between two checks of the event loop (lowering caches filling with the
// kernels of a long prompt's chunks: a few events, hundreds of MiB) reports the bytes it just
// kept; every kGrowthCheckBytes of them on this thread, check_host_memory() runs (a /proc read), so
// such growth passes the limit by at most that much before it stops the run.
inline constexpr std::uint64_t kGrowthCheckBytes = std::uint64_t{8} << 20;
void note_host_growth(std::uint64_t bytes);

// Heap bytes a string holds beyond its own object: 0 while its text fits the object's inline
// buffer (no allocation), else its capacity and terminator. Asked of the string, not of a
// library's buffer size, for the growth noted above.
inline std::uint64_t string_heap_bytes(const std::string& s) {
  const auto* object = reinterpret_cast<const char*>(&s);
  const std::less<const char*> before;  // a total order for pointers into different objects
  const bool inline_text = !before(s.data(), object) && before(s.data(), object + sizeof(std::string));
  return inline_text ? 0 : s.capacity() + 1;
}

// Thrown when the process's resident memory passes the limit.
class HostMemoryExceeded : public std::runtime_error {
 public:
  // `allocating`: the bytes an allocation about to be made would add (the message then says what
  // the simulation would hold); 0 = it holds `resident` already.
  HostMemoryExceeded(std::uint64_t resident, std::uint64_t limit, std::uint64_t allocating = 0);
  std::uint64_t resident() const { return resident_; }
  std::uint64_t limit() const { return limit_; }

 private:
  std::uint64_t resident_, limit_;
};

}  // namespace socsim
