#include "sim/core/sync.h"

#include <stdexcept>

namespace socsim {

void Trigger::fire() {
  if (fired_) throw std::logic_error("Trigger fired twice");
  fired_ = true;
  fired_at_ = sim_.now();
  for (auto h : waiters_) sim_.resume_at(sim_.now(), h);
  waiters_.clear();
}

void WaitGroup::done() {
  if (pending_ == 0) throw std::logic_error("WaitGroup::done without a matching add");
  if (--pending_ == 0) done_.fire();
}

void Progress::advance(std::uint64_t by) {
  value_ += by;
  // Resume, in the order they began waiting, those whose value has been reached.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < waiters_.size(); ++i) {
    if (waiters_[i].target <= value_) {
      sim_.resume_at(sim_.now(), waiters_[i].handle);
    } else {
      waiters_[kept++] = waiters_[i];
    }
  }
  waiters_.resize(kept);
}

namespace {

// Starts every child through the event queue at now() (in order: one event each, as spawning
// them would) and suspends the join; each child that finishes resumes the join by symmetric
// transfer.
struct StartChildren {
  Simulator& sim;
  TaskList& tasks;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> join) {
    // All checked before any is scheduled: a queued resume must never outlive its frame.
    for (const auto& t : tasks) {
      if (!t.valid()) throw std::invalid_argument("when_all: an empty task");
    }
    sim.reserve_events(tasks.size());  // may throw; then nothing is scheduled
    for (auto& t : tasks) sim.resume_at(sim.now(), t.joined_by(join, &sim));
  }
  void await_resume() const noexcept {}
};

// Suspends until the next child finishes (control returns to the event loop meanwhile).
struct NextChild {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  void await_resume() const noexcept {}
};

// The children are the join's own frames: a join destroyed mid-flight (teardown after an error)
// destroys them, last started first, as the simulator destroys processes.
struct DestroyInReverse {
  TaskList& tasks;
  ~DestroyInReverse() {
    while (!tasks.empty()) tasks.pop_back();
  }
};

}  // namespace

// The children are not processes of their own: no process-table entry, frame or name per child
// (that was a sixth of a run's instructions). The order of events is what it was when each child
// ran as a process and signalled a WaitGroup: one resume per child at the start, one resume of
// the join through the queue after the last child; a child that throws never resumes the join.
Task<> run_and_note_end(Simulator& sim, Task<> task, Tick& end) {
  co_await task;
  end = sim.now();
}

Task<> when_all(Simulator& sim, TaskList tasks) {
  if (tasks.empty()) co_return;
  DestroyInReverse owner{tasks};
  co_await StartChildren{sim, tasks};  // resumed by the first child to finish
  for (std::size_t finished = 1; finished < tasks.size(); ++finished) co_await NextChild{};
  co_await sim.delay(0);  // continue through the queue, as a fired WaitGroup resumes its waiter
}

}  // namespace socsim
