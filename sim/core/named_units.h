#pragma once
// Counted units that also have names: an NPU's hardware threads 0..n-1 or its HVX contexts. A
// grant is the Resource's (strictly FIFO, sim/core/resource.h) and carries which units it holds,
// the lowest free ones, so a timeline can show what each hardware thread ran and a context's own
// DRAM stream can be told from another's.
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/core/resource.h"

namespace socsim {

class NamedUnits {
 public:
  static constexpr std::uint32_t kMaxUnits = 64;

  NamedUnits(Simulator& sim, std::string name, std::uint32_t count) : resource_(sim, std::move(name), count) {
    if (count > kMaxUnits) {
      throw std::invalid_argument("'" + resource_.name() + "': " + std::to_string(count) + " units, at most " +
                                  std::to_string(kMaxUnits));
    }
    free_ = count == kMaxUnits ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
  }
  NamedUnits(const NamedUnits&) = delete;
  NamedUnits& operator=(const NamedUnits&) = delete;

  // Units held; given back (ids first, then the count) when it goes out of scope.
  class Grant {
   public:
    Grant() = default;
    Grant(NamedUnits* owner, Lease lease, std::uint64_t ids) : owner_(owner), lease_(std::move(lease)), ids_(ids) {}
    Grant(Grant&& o) noexcept : owner_(std::exchange(o.owner_, nullptr)), lease_(std::move(o.lease_)), ids_(o.ids_) {}
    Grant& operator=(Grant&&) = delete;
    Grant(const Grant&) = delete;
    Grant& operator=(const Grant&) = delete;
    ~Grant() {
      if (owner_) owner_->free_ |= ids_;
    }
    std::uint64_t ids() const { return ids_; }

   private:
    NamedUnits* owner_ = nullptr;
    Lease lease_;
    std::uint64_t ids_ = 0;
  };

  auto acquire(std::uint32_t units) {
    using Inner = decltype(std::declval<Resource&>().acquire(1u));
    struct Awaiter {
      NamedUnits& u;
      std::uint32_t units;
      Inner inner;
      bool await_ready() { return inner.await_ready(); }
      void await_suspend(std::coroutine_handle<> h) { inner.await_suspend(h); }
      Grant await_resume() {
        Lease lease = inner.await_resume();
        return Grant(&u, std::move(lease), u.claim(units));
      }
    };
    return Awaiter{*this, units, resource_.acquire(units)};
  }

  const Resource& resource() const { return resource_; }
  bool idle() const { return resource_.idle(); }
  Resource::Stats stats() const { return resource_.stats(); }
  void absorb(const Resource::Stats& recorded, Tick offset) { resource_.absorb(recorded, offset); }
  std::uint32_t capacity() const { return resource_.capacity(); }

  // Calls f(id) for each unit in a grant's id set, lowest first.
  template <class F>
  static void for_each(std::uint64_t ids, F&& f) {
    while (ids) {
      f(static_cast<std::uint32_t>(std::countr_zero(ids)));
      ids &= ids - 1;
    }
  }

 private:
  std::uint64_t claim(std::uint32_t units) {
    std::uint64_t ids = 0;
    for (std::uint32_t i = 0; i < units; ++i) {
      if (free_ == 0) throw std::logic_error("'" + resource_.name() + "': granted more units than are free");
      const std::uint64_t lowest = free_ & (~free_ + 1);
      ids |= lowest;
      free_ &= ~lowest;
    }
    return ids;
  }

  Resource resource_;
  std::uint64_t free_ = 0;
};

}  // namespace socsim
