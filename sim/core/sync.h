#pragma once
// Synchronization between processes: a one-shot Trigger (many waiters, fired once), a WaitGroup
// (join on N completions) and when_all over child tasks. Waiters are resumed through the event
// queue at the firing time, never inline, so resumption order is (time, sequence) like
// everything else and deep wake-up chains cannot overflow the stack.
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "sim/core/simulator.h"

namespace socsim {

class Trigger {
 public:
  explicit Trigger(Simulator& sim) : sim_(sim) {}
  Trigger(const Trigger&) = delete;
  Trigger& operator=(const Trigger&) = delete;

  bool fired() const { return fired_; }
  Tick fired_at() const { return fired_at_; }
  void fire();

  auto wait() {
    struct Awaiter {
      Trigger& t;
      bool await_ready() const noexcept { return t.fired_; }
      void await_suspend(std::coroutine_handle<> h) { t.waiters_.push_back(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{*this};
  }

 private:
  Simulator& sim_;
  bool fired_ = false;
  Tick fired_at_ = 0;
  std::vector<std::coroutine_handle<>> waiters_;
};

class WaitGroup {
 public:
  explicit WaitGroup(Simulator& sim) : done_(sim) {}
  void add(std::size_t n) { pending_ += n; }
  void done();
  auto wait() {
    if (pending_ == 0 && !done_.fired()) done_.fire();
    return done_.wait();
  }

 private:
  Trigger done_;
  std::size_t pending_ = 0;
};

// A monotone counter that processes wait on until it reaches a value: how far each stage of a
// software pipeline has got (sim/runtime/work_runner.cpp). Waiters resume through the event queue
// when advance() reaches their value.
class Progress {
 public:
  explicit Progress(Simulator& sim) : sim_(sim) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  std::uint64_t value() const { return value_; }
  void advance(std::uint64_t by = 1);

  auto reach(std::uint64_t target) {
    struct Awaiter {
      Progress& p;
      std::uint64_t target;
      bool await_ready() const noexcept { return p.value_ >= target; }
      void await_suspend(std::coroutine_handle<> h) { p.waiters_.push_back({target, h}); }
      void await_resume() const noexcept {}
    };
    return Awaiter{*this, target};
  }

 private:
  struct Waiter {
    std::uint64_t target;
    std::coroutine_handle<> handle;
  };
  Simulator& sim_;
  std::uint64_t value_ = 0;
  std::vector<Waiter> waiters_;
};

// The tasks of a join: up to 8 without a heap allocation (most joins are a few parts).
using TaskList = boost::container::small_vector<Task<>, 8>;
// Runs all tasks concurrently (each starts through the event queue at now(), in order) and
// completes when every one has finished. An exception in a child is rethrown from Simulator::run.
// The children run inside the awaiting process: a deadlock report names that process.
Task<> when_all(Simulator& sim, TaskList tasks);

// Runs `task` and writes when it ended to `end`: a recording's end is its last step's, not the
// time of the last event in the queue (a superseded wake-up may still fire after it).
Task<> run_and_note_end(Simulator& sim, Task<> task, Tick& end);

}  // namespace socsim
