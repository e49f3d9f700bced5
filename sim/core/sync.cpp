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
