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
  // Removes and returns the earliest event. Precondition: !empty().
  Event pop();

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  Tick next_time() const { return heap_.front().time; }

  // Pending events in firing order (for the watchdog's dump; O(n log n), never on a hot path).
  std::vector<Event> pending_sorted() const;

 private:
  // A binary min-heap on (time, seq) kept by hand: std::priority_queue cannot hand out its
  // contents for diagnostics, and the comparison must be exactly this one.
  static bool later(const Event& a, const Event& b) {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
  std::vector<Event> heap_;
  EventSeq next_seq_ = 0;
};

}  // namespace socsim
