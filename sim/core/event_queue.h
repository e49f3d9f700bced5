#pragma once
// The pending-event set. Events are ordered by (time, insertion sequence): two events at the same
// tick fire in the order they were scheduled, so a run is a pure function of its inputs (SST's
// TimeVortex does the same). The payload is a plain function pointer + context, not a
// std::function, so scheduling allocates nothing on the hot path (coroutine resumes and unit
// callbacks both fit this form). Cancellation lives one level up (sim/core/timer.h), so the
// queue itself pays nothing for it.
#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace socsim {

using EventSeq = std::uint64_t;  // insertion sequence number; unique per queue
using EventFn = void (*)(void* ctx);

class EventQueue {
 public:
  struct Event {
    Tick time;
    EventSeq seq;
    EventFn fn;
    void* ctx;
  };

  EventSeq push(Tick time, EventFn fn, void* ctx);
  // Room for `n` more events, so the next n pushes cannot fail for memory (a caller scheduling a
  // batch either schedules all of it or, throwing here, none).
  void reserve(std::size_t n) {
    heap_.reserve(heap_.size() + n);
    now_.reserve(now_.size() + n);
  }
  // Removes and returns the earliest event. Precondition: !empty().
  Event pop();

  bool empty() const { return heap_.empty() && now_head_ == now_.size(); }
  std::size_t size() const { return heap_.size() + (now_.size() - now_head_); }
  Tick next_time() const { return now_first() ? now_[now_head_].time : heap_.front().time; }

  // Pending events in firing order (for the watchdog's dump; O(n log n), never on a hot path).
  std::vector<Event> pending_sorted() const;

 private:
  // The next event comes from now_ (precondition: !empty()).
  bool now_first() const {
    if (now_head_ == now_.size()) return false;
    if (heap_.empty()) return true;
    const Event& h = heap_.front();
    const Event& f = now_[now_head_];
    return h.time != f.time ? h.time > f.time : h.seq > f.seq;
  }
  // A binary min-heap on (time, seq) kept by hand: std::priority_queue cannot hand out its
  // contents for diagnostics, and the comparison must be exactly this one.
  std::vector<Event> heap_;
  // Most events are scheduled for the instant being processed (resumes at now()). Those go to a
  // FIFO instead of the heap: they are already in (time, seq) order, since each gets the next
  // sequence number. pop() takes the earlier of the heap's top and the FIFO's front, so the order
  // is exactly that of one heap.
  std::vector<Event> now_;
  std::size_t now_head_ = 0;
  Tick last_popped_ = 0;
  EventSeq next_seq_ = 0;
};

}  // namespace socsim
