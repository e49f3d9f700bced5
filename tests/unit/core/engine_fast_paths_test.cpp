// The engine's fast paths must not change what a run computes: the event queue's FIFO for
// events at the current instant, when_all without a process per child, recycled coroutine
// frames and the process table's slots. Each test checks the observable order or outcome against
// what the plain mechanism (one heap; children as processes) gives.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/frame_pool.h"
#include "sim/core/simulator.h"
#include "sim/core/sync.h"

namespace socsim {
namespace {

void noop(void*) {}

// Reference: a stable sort by (time, insertion order) of everything pushed.
TEST(EventQueueFastPath, RandomPushesAndPopsMatchOneSortedOrder) {
  std::mt19937_64 rng(7);
  EventQueue q;
  struct Pending {
    Tick time;
    std::uintptr_t tag;
  };
  std::vector<Pending> reference;  // kept sorted by (time, tag); tags grow with insertion order
  std::uintptr_t next_tag = 1;
  Tick now = 0;
  for (int step = 0; step < 20000; ++step) {
    const bool do_push = reference.empty() || rng() % 3 != 0;
    if (do_push) {
      // Half the pushes at the current instant (the FIFO path), the rest up to 5 ticks later.
      const Tick t = now + (rng() % 2 == 0 ? 0 : rng() % 6);
      const std::uintptr_t tag = next_tag++;
      q.push(t, &noop, reinterpret_cast<void*>(tag));
      auto it = reference.begin();
      while (it != reference.end() && it->time <= t) ++it;
      reference.insert(it, Pending{t, tag});
    } else {
      ASSERT_EQ(q.next_time(), reference.front().time);
      const EventQueue::Event e = q.pop();
      ASSERT_EQ(e.time, reference.front().time) << "step " << step;
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(e.ctx), reference.front().tag) << "step " << step;
      reference.erase(reference.begin());
      now = e.time;
    }
    ASSERT_EQ(q.size(), reference.size());
  }
  const auto sorted = q.pending_sorted();
  ASSERT_EQ(sorted.size(), reference.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(sorted[i].ctx), reference[i].tag);
  }
}

TEST(EventQueueFastPath, AnEventQueuedEarlierForThisInstantFiresBeforeOneQueuedNow) {
  EventQueue q;
  q.push(10, &noop, reinterpret_cast<void*>(1));  // heap: 10 is in the future
  q.push(10, &noop, reinterpret_cast<void*>(2));
  q.push(5, &noop, reinterpret_cast<void*>(3));
  EXPECT_EQ(q.pop().ctx, reinterpret_cast<void*>(3));  // now 5
  q.push(5, &noop, reinterpret_cast<void*>(4));        // FIFO
  EXPECT_EQ(q.pop().ctx, reinterpret_cast<void*>(4));
  EXPECT_EQ(q.pop().ctx, reinterpret_cast<void*>(1));  // now 10
  q.push(10, &noop, reinterpret_cast<void*>(5));       // FIFO, after 2 (queued earlier)
  EXPECT_EQ(q.pop().ctx, reinterpret_cast<void*>(2));
  EXPECT_EQ(q.pop().ctx, reinterpret_cast<void*>(5));
  EXPECT_TRUE(q.empty());
}

Task<> record_after(Simulator& sim, Tick dt, std::vector<std::string>& log, std::string what) {
  co_await sim.delay(dt);
  log.push_back(what);
}

Task<> join_then_record(Simulator& sim, std::vector<std::string>& log) {
  TaskList children;
  children.push_back(record_after(sim, 10, log, "child a"));
  children.push_back(record_after(sim, 10, log, "child b"));
  co_await when_all(sim, std::move(children));
  log.push_back("join");
}

Task<> record_in_two_steps(Simulator& sim, Tick first, Tick second, std::vector<std::string>& log, std::string what) {
  co_await sim.delay(first);
  co_await sim.delay(second);
  log.push_back(what);
}

// The join continues through the queue after its last child, as a WaitGroup's waiter did: an
// event queued for that instant before the last child finished runs first ("other" queues its
// t=10 event at t=3, after the children queued theirs at t=0; continuing inline would log the
// join first).
TEST(WhenAllFastPath, JoinResumesThroughTheQueueAfterTheLastChild) {
  Simulator sim;
  std::vector<std::string> log;
  sim.spawn(join_then_record(sim, log), "join");
  sim.spawn(record_in_two_steps(sim, 3, 7, log, "other"), "other");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_EQ(log, (std::vector<std::string>{"child a", "child b", "other", "join"}));
  EXPECT_EQ(sim.now(), 10u);
  EXPECT_EQ(sim.live_processes(), 0u);
}

Task<> throw_after(Simulator& sim, Tick dt) {
  co_await sim.delay(dt);
  throw std::runtime_error("child failed");
}

Task<> join_with_failing_child(Simulator& sim, bool& continued) {
  TaskList children;
  children.push_back(throw_after(sim, 5));
  children.push_back(sim.delay_task(100));
  co_await when_all(sim, std::move(children));
  continued = true;
}

TEST(WhenAllFastPath, ChildExceptionIsRethrownFromRunAndTheRestIsTornDown) {
  Simulator sim;
  bool continued = false;
  sim.spawn(join_with_failing_child(sim, continued), "join");
  EXPECT_THROW(sim.run(), std::runtime_error);
  EXPECT_EQ(sim.now(), 5u);
  EXPECT_FALSE(continued);
  // The other child's delay is still queued; the join waits for ever, as a WaitGroup that a
  // failed child never signalled did: running on after catching the error ends in a stall that
  // names the join, never in the code after when_all.
  EXPECT_EQ(sim.pending_events(), 1u);
  EXPECT_EQ(sim.run(), RunResult::kStalled);
  EXPECT_FALSE(continued);
  EXPECT_EQ(sim.blocked_processes(), (std::vector<std::string>{"join"}));
  // The join and its children are destroyed with their process (ASan checks the rest).
  sim.kill_processes();
  EXPECT_EQ(sim.live_processes(), 0u);
  EXPECT_EQ(sim.pending_events(), 0u);
}

TEST(WhenAllFastPath, AnEmptyTaskIsRefusedBeforeAnyChildStarts) {
  Simulator sim;
  std::vector<std::string> log;
  auto body = [](Simulator& s, std::vector<std::string>& out) -> Task<> {
    TaskList children;
    children.push_back(record_after(s, 1, out, "never"));
    children.emplace_back();
    co_await when_all(s, std::move(children));
  };
  sim.spawn(body(sim, log), "join");
  EXPECT_THROW(sim.run(), std::invalid_argument);
  EXPECT_TRUE(log.empty());
  // Nothing was scheduled for the valid child either: no resume outlives the frames the unwind
  // destroyed.
  EXPECT_EQ(sim.pending_events(), 0u);
}

TEST(ProcessTable, SlotsAreReusedAndReportsKeepSpawnOrder) {
  Simulator sim;
  Trigger never(sim);
  auto wait_forever = [](Trigger& t) -> Task<> { co_await t.wait(); };
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) sim.spawn(sim.delay_task(1), "short");
    sim.run();
  }
  sim.spawn(wait_forever(never), "first");
  sim.spawn(sim.delay_task(1), "ends");
  sim.spawn(wait_forever(never), "second");
  EXPECT_EQ(sim.run(), RunResult::kStalled);
  EXPECT_EQ(sim.blocked_processes(), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(sim.live_processes(), 2u);
}

TEST(FramePool, BlocksAreRecycledBySizeClassAndLargeOnesPassThrough) {
  void* a = detail::allocate_frame(100);
  detail::free_frame(a, 100);
  void* b = detail::allocate_frame(120);  // same 64-byte class (65..128)
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(a, b);
#endif
  detail::free_frame(b, 120);
  void* big = detail::allocate_frame(1 << 20);
  ASSERT_NE(big, nullptr);
  static_cast<char*>(big)[(1 << 20) - 1] = 1;
  detail::free_frame(big, 1 << 20);
}

}  // namespace
}  // namespace socsim
