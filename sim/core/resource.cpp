#include "sim/core/resource.h"

#include <stdexcept>

namespace socsim {

Lease& Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    release();
    resource_ = std::exchange(o.resource_, nullptr);
    units_ = o.units_;
  }
  return *this;
}

void Lease::release() {
  if (resource_) std::exchange(resource_, nullptr)->release(units_);
}

Resource::Resource(Simulator& sim, std::string name, std::uint32_t capacity)
    : sim_(sim), name_(std::move(name)), capacity_(capacity), available_(capacity) {
  if (capacity_ == 0) throw std::invalid_argument("resource '" + name_ + "': capacity must be > 0");
}

void Resource::absorb(const Stats& recorded, Tick offset) {
  if (!idle()) throw std::logic_error("resource '" + name_ + "': absorbs a stretch only while idle");
  in_use_.absorb(recorded.in_use, offset);
  busy_.absorb(recorded.busy);
  grants_ += recorded.grants;
}

void Resource::check_request(std::uint32_t units) const {
  if (units == 0 || units > capacity_) {
    throw std::invalid_argument("resource '" + name_ + "': request of " + std::to_string(units) +
                                " units, capacity is " + std::to_string(capacity_));
  }
}

void Resource::take(std::uint32_t units) {
  if (available_ == capacity_) busy_.begin(sim_.now());
  available_ -= units;
  in_use_.set(sim_.now(), capacity_ - available_);
  ++grants_;
}

void Resource::release(std::uint32_t units) {
  // Frames destroyed at teardown give their leases back; nothing may be scheduled then.
  if (sim_.tearing_down()) return;
  if (units > capacity_ - available_) throw std::logic_error("resource '" + name_ + "': released more than held");
  available_ += units;
  in_use_.set(sim_.now(), capacity_ - available_);
  if (available_ == capacity_) busy_.end(sim_.now());
  // Hand units to waiters in strict FIFO order; the granted waiter resumes through the queue.
  while (!waiters_.empty() && available_ >= waiters_.front().units) {
    const Waiter w = waiters_.front();
    waiters_.pop_front();
    take(w.units);
    sim_.resume_at(sim_.now(), w.handle);
  }
}

}  // namespace socsim
