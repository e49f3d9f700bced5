#include "sim/runtime/lane_gate.h"

#include <stdexcept>

namespace socsim::runtime {

Task<> LaneGate::acquire(std::uint32_t job) {
  if (wake_.count(job)) throw std::logic_error("job waits twice for one lane");
  waiting_.push_back(job);
  auto& t = *wake_.emplace(job, std::make_unique<Trigger>(sim_)).first->second;
  if (!busy_) schedule_pick();
  co_await t.wait();
}

void LaneGate::release() {
  busy_ = false;
  if (!waiting_.empty()) schedule_pick();
}

void LaneGate::schedule_pick() {
  if (pick_pending_) return;
  pick_pending_ = true;
  sim_.call_at(sim_.now(), [this] {
    pick_pending_ = false;
    if (busy_ || waiting_.empty()) return;
    const std::size_t i = pick_(waiting_);
    if (i >= waiting_.size()) throw std::logic_error("lane pick out of range");
    const std::uint32_t job = waiting_[i];
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
    busy_ = true;
    // fire() schedules the waiter's resumption; the awaiter reads nothing from the trigger
    // after that, so it can go now.
    wake_.extract(job).mapped()->fire();
  });
}

}  // namespace socsim::runtime
