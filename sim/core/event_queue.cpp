#include "sim/core/event_queue.h"

#include <algorithm>

namespace socsim {

EventSeq EventQueue::push(Tick time, EventFn fn, void* ctx) {
  const EventSeq seq = next_seq_++;
  heap_.push_back(Event{time, seq, fn, ctx});
  std::push_heap(heap_.begin(), heap_.end(), later);
  return seq;
}

EventQueue::Event EventQueue::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), later);
  Event e = heap_.back();
  heap_.pop_back();
  return e;
}

std::vector<EventQueue::Event> EventQueue::pending_sorted() const {
  std::vector<Event> v = heap_;
  std::sort(v.begin(), v.end(), [](const Event& a, const Event& b) { return later(b, a); });
  return v;
}

}  // namespace socsim
