#include "sim/runtime/lane_gate.h"

#include <stdexcept>

namespace socsim::runtime {

void LaneGate::enqueue(std::uint32_t job, std::coroutine_handle<> waiter) {
  waiting_.push_back(job);
  waiters_.push_back(waiter);
  if (!busy_) schedule_pick();
}

void LaneGate::release() {
  busy_ = false;
  if (!waiting_.empty()) schedule_pick();
}

void LaneGate::schedule_pick() {
  if (pick_pending_) return;
  pick_pending_ = true;
  sim_.schedule_at(sim_.now(), &LaneGate::on_pick, this);
}

void LaneGate::on_pick(void* self) {
  LaneGate& g = *static_cast<LaneGate*>(self);
  g.pick_pending_ = false;
  if (g.busy_ || g.waiting_.empty()) return;
  const std::size_t i = g.pick_(g.waiting_);
  if (i >= g.waiting_.size()) throw std::logic_error("lane pick out of range");
  const std::coroutine_handle<> waiter = g.waiters_[i];
  g.waiting_.erase(g.waiting_.begin() + static_cast<std::ptrdiff_t>(i));
  g.waiters_.erase(g.waiters_.begin() + static_cast<std::ptrdiff_t>(i));
  g.busy_ = true;
  // As a trigger fires: the waiter resumes in an event of its own at this instant.
  g.sim_.resume_at(g.sim_.now(), waiter);
}

}  // namespace socsim::runtime
