#pragma once
// A lane: jobs that run one at a time on one processor (llm.npu 3.4: "each processor runs one
// subgraph at a time"). A job asks for the lane when its dependencies are met; when the lane is
// free, a pick among every job waiting at that moment chooses who runs next. The pick is made
// after the events of the current tick (a zero-delay event), so jobs that become ready together
// are all candidates.
#include <coroutine>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "sim/core/simulator.h"

namespace socsim::runtime {

class LaneGate {
 public:
  // `pick` returns the position in `waiting` of the job to run (waiting is never empty).
  using Pick = std::function<std::size_t(const std::vector<std::uint32_t>& waiting)>;
  LaneGate(Simulator& sim, Pick pick) : sim_(sim), pick_(std::move(pick)) {}
  LaneGate(const LaneGate&) = delete;
  LaneGate& operator=(const LaneGate&) = delete;

  // Awaiting it completes when `job` holds the lane: the awaiting coroutine waits in the lane's
  // list (no frame, trigger or map node of its own per job) and is resumed through the event
  // queue at the pick, as a trigger's waiter is. Throws std::logic_error if `job` already waits.
  [[nodiscard]] auto acquire(std::uint32_t job) {
    for (const auto w : waiting_) {
      if (w == job) throw std::logic_error("job waits twice for one lane");
    }
    struct Awaiter {
      LaneGate& gate;
      std::uint32_t job;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) { gate.enqueue(job, h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{*this, job};
  }
  void release();
  bool busy() const { return busy_; }

 private:
  void enqueue(std::uint32_t job, std::coroutine_handle<> waiter);
  void schedule_pick();
  static void on_pick(void* self);

  Simulator& sim_;
  Pick pick_;
  bool busy_ = false;
  bool pick_pending_ = false;
  std::vector<std::uint32_t> waiting_;                 // jobs waiting, in arrival order (what pick_ sees)
  std::vector<std::coroutine_handle<>> waiters_;       // their coroutines, in the same order
};

}  // namespace socsim::runtime
