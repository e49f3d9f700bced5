#pragma once
// A counted resource with a FIFO wait queue: HMX engines, HVX contexts, DMA channels, CPU cores,
// a GPU command queue. `co_await r.acquire(n)` returns a Lease that gives the units back when it
// goes out of scope. Grants are strictly FIFO: a large request at the head is not overtaken by
// smaller ones behind it (no starvation, and the order is easy to reason about in a timeline).
#include <coroutine>
#include <cstdint>
#include <deque>
#include <string>

#include "sim/core/simulator.h"
#include "sim/core/statistics.h"

namespace socsim {

class Resource;

class Lease {
 public:
  Lease() = default;
  Lease(Resource* r, std::uint32_t units) : resource_(r), units_(units) {}
  Lease(Lease&& o) noexcept : resource_(std::exchange(o.resource_, nullptr)), units_(o.units_) {}
  Lease& operator=(Lease&& o) noexcept;
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease() { release(); }
  void release();
  std::uint32_t units() const { return resource_ ? units_ : 0; }

 private:
  Resource* resource_ = nullptr;
  std::uint32_t units_ = 0;
};

class Resource {
 public:
  Resource(Simulator& sim, std::string name, std::uint32_t capacity);
  Resource(const Resource&) = delete;
  Resource& operator=(const Resource&) = delete;

  const std::string& name() const { return name_; }
  std::uint32_t capacity() const { return capacity_; }
  std::uint32_t available() const { return available_; }
  std::size_t queue_length() const { return waiters_.size(); }

  // Time-weighted number of units in use; busy() is the time at least one unit was in use.
  const TimeWeighted& in_use() const { return in_use_; }
  const BusyTime& busy() const { return busy_; }
  std::uint64_t grants() const { return grants_; }
  // No unit held and nobody waiting.
  bool idle() const { return available_ == capacity_ && waiters_.empty(); }
  // The statistics of an idle-to-idle stretch, taken from a resource that ran it from time 0
  // elsewhere and added to this one as if it had run here from `offset` (both idle).
  struct Stats {
    TimeWeighted in_use;
    BusyTime busy;
    std::uint64_t grants = 0;
  };
  Stats stats() const { return {in_use_, busy_, grants_}; }
  void absorb(const Stats& recorded, Tick offset);

  auto acquire(std::uint32_t units = 1) {
    struct Awaiter {
      Resource& r;
      std::uint32_t units;
      bool await_ready() {
        r.check_request(units);
        if (r.waiters_.empty() && r.available_ >= units) {
          r.take(units);
          return true;
        }
        return false;
      }
      void await_suspend(std::coroutine_handle<> h) { r.waiters_.push_back({h, units}); }
      Lease await_resume() { return Lease(&r, units); }
    };
    return Awaiter{*this, units};
  }

  // For callback-style users; prefer Lease.
  void release(std::uint32_t units);

 private:
  void check_request(std::uint32_t units) const;
  void take(std::uint32_t units);
  struct Waiter {
    std::coroutine_handle<> handle;
    std::uint32_t units;
  };

  Simulator& sim_;
  std::string name_;
  std::uint32_t capacity_;
  std::uint32_t available_;
  std::deque<Waiter> waiters_;
  TimeWeighted in_use_;
  BusyTime busy_;
  std::uint64_t grants_ = 0;
};

}  // namespace socsim
