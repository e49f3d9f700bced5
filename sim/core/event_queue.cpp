#include "sim/core/event_queue.h"

#include <algorithm>

namespace socsim {

namespace {
// A lambda, not the function pointer: the heap algorithms inline it.
constexpr auto kLater = [](const EventQueue::Event& a, const EventQueue::Event& b) {
  return a.time != b.time ? a.time > b.time : a.seq > b.seq;
};
}  // namespace

EventSeq EventQueue::push(Tick time, EventFn fn, void* ctx) {
  const EventSeq seq = next_seq_++;
  if (time == last_popped_ && (now_head_ == now_.size() || now_.back().time == time)) {
    if (now_head_ == now_.size()) {
      now_.clear();
      now_head_ = 0;
    }
    now_.push_back(Event{time, seq, fn, ctx});
    return seq;
  }
  heap_.push_back(Event{time, seq, fn, ctx});
  std::push_heap(heap_.begin(), heap_.end(), kLater);
  return seq;
}

EventQueue::Event EventQueue::pop() {
  Event e;
  if (now_first()) {
    e = now_[now_head_++];
  } else {
    std::pop_heap(heap_.begin(), heap_.end(), kLater);
    e = heap_.back();
    heap_.pop_back();
  }
  last_popped_ = e.time;
  return e;
}

std::vector<EventQueue::Event> EventQueue::pending_sorted() const {
  std::vector<Event> v = heap_;
  v.insert(v.end(), now_.begin() + static_cast<std::ptrdiff_t>(now_head_), now_.end());
  std::sort(v.begin(), v.end(), [](const Event& a, const Event& b) { return kLater(b, a); });
  return v;
}

}  // namespace socsim
