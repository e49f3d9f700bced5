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

void Progress::advance() {
  ++value_;
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
Task<> run_then_done(Task<> child, WaitGroup& group) {
  co_await child;
  group.done();
}
}  // namespace

Task<> when_all(Simulator& sim, std::vector<Task<>> tasks, std::string name) {
  WaitGroup group(sim);
  group.add(tasks.size());
  std::size_t i = 0;
  for (auto& t : tasks) sim.spawn(run_then_done(std::move(t), group), name + "[" + std::to_string(i++) + "]");
  co_await group.wait();
}

}  // namespace socsim
