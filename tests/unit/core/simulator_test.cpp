#include "sim/core/simulator.h"

#include <gtest/gtest.h>

#include <coroutine>
#include <string>
#include <vector>

#include "sim/core/sync.h"

namespace socsim {
namespace {

TEST(Simulator, EventsFireInTimeOrder) {
  Simulator sim;
  std::vector<int> order;
  sim.call_at(30, [&] { order.push_back(3); });
  sim.call_at(10, [&] { order.push_back(1); });
  sim.call_at(20, [&] { order.push_back(2); });
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(sim.now(), 30u);
  EXPECT_EQ(sim.events_fired(), 3u);
}

TEST(Simulator, TiesFireInInsertionOrder) {
  Simulator sim;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) sim.call_at(5, [&order, i] { order.push_back(i); });
  sim.run();
  for (int i = 0; i < 100; ++i) ASSERT_EQ(order[i], i);
}

TEST(Simulator, EventScheduledForNowRunsAfterThoseAlreadyQueued) {
  Simulator sim;
  std::vector<std::string> order;
  sim.call_at(10, [&] {
    order.push_back("a");
    sim.call_at(10, [&] { order.push_back("c"); });
  });
  sim.call_at(10, [&] { order.push_back("b"); });
  sim.run();
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c"}));
}

// spawn_now runs the process inside the current event, up to its first suspension: before
// events already queued for this instant (spawn would run it after them). A process that ends
// at once frees its slot, and its error still reaches run().
TEST(Simulator, SpawnNowRunsInsideTheCurrentEvent) {
  Simulator sim;
  std::vector<std::string> order;
  auto proc = [&](std::string name) -> Task<> {
    order.push_back(name + " starts");
    co_await sim.delay(0);
    order.push_back(name + " resumes");
  };
  sim.call_at(5, [&] {
    sim.spawn(proc("queued"), "queued");
    EXPECT_GT(sim.spawn_now(proc("now"), "now"), 0u);
    order.push_back("event ends");
  });
  sim.call_at(5, [&] { order.push_back("next event"); });
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_EQ(order, (std::vector<std::string>{"now starts", "event ends", "next event", "queued starts", "now resumes", "queued resumes"}));
  EXPECT_EQ(sim.live_processes(), 0u);

  Simulator failing;
  auto quick = []() -> Task<> { co_return; };
  auto thrower = []() -> Task<> {
    throw std::runtime_error("boom");
    co_return;
  };
  failing.call_at(1, [&] {
    failing.spawn_now(quick(), "quick");
    failing.spawn_now(thrower(), "thrower");
  });
  EXPECT_THROW(failing.run(), std::runtime_error);
  EXPECT_EQ(failing.live_processes(), 0u);
}

TEST(Simulator, PastEventIsAnError) {
  Simulator sim;
  sim.call_at(10, [&] { EXPECT_THROW(sim.call_at(9, [] {}), std::logic_error); });
  sim.run();
}

TEST(Simulator, RunUntilStopsAtBound) {
  Simulator sim;
  int fired = 0;
  sim.call_at(10, [&] { ++fired; });
  sim.call_at(20, [&] { ++fired; });
  EXPECT_EQ(sim.run(15), RunResult::kTimeLimit);
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(sim.now(), 15u);
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_EQ(fired, 2);
}

TEST(Simulator, UnfiredCallbacksAreFreedWithoutRunning) {
  // ASan checks the free; the flag checks they did not run.
  bool ran = false;
  {
    Simulator sim;
    sim.call_at(100, [&] { ran = true; });
    sim.run(50);
  }
  EXPECT_FALSE(ran);
}

Task<> sleeper(Simulator& sim, Tick d, std::vector<Tick>& wakeups) {
  co_await sim.delay(d);
  wakeups.push_back(sim.now());
  co_await sim.delay(d);
  wakeups.push_back(sim.now());
}

TEST(Process, DelayAdvancesTime) {
  Simulator sim;
  std::vector<Tick> w;
  sim.spawn(sleeper(sim, 7, w), "sleeper");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_EQ(w, (std::vector<Tick>{7, 14}));
  EXPECT_EQ(sim.live_processes(), 0u);
}

Task<int> child(Simulator& sim, int x) {
  co_await sim.delay(5);
  co_return x * 2;
}

Task<> parent(Simulator& sim, int& out) {
  const int a = co_await child(sim, 3);
  const int b = co_await child(sim, a);
  out = b;
}

TEST(Process, AwaitedChildReturnsValueAfterItsDelay) {
  Simulator sim;
  int out = 0;
  sim.spawn(parent(sim, out), "parent");
  sim.run();
  EXPECT_EQ(out, 12);
  EXPECT_EQ(sim.now(), 10u);  // two children of 5 ps each, in sequence
}

Task<> deep(Simulator& sim, int n) {
  if (n > 0) co_await deep(sim, n - 1);
}

// Symmetric transfer makes resumption a tail call in optimized builds; GCC does not guarantee
// the tail call at -O0 or under ASan, so the depth here is what a layer-by-op-by-tile chain needs,
// not an unbounded one.
TEST(Process, DeepChainsOfChildrenComplete) {
  Simulator sim;
  sim.spawn(deep(sim, 2000), "deep");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
}

Task<> thrower(Simulator& sim) {
  co_await sim.delay(3);
  throw std::runtime_error("unit failed");
}

TEST(Process, ExceptionSurfacesFromRun) {
  Simulator sim;
  sim.spawn(thrower(sim), "thrower");
  EXPECT_THROW(sim.run(), std::runtime_error);
}

Task<> catcher(Simulator& sim, bool& caught) {
  try {
    co_await thrower(sim);
  } catch (const std::runtime_error&) {
    caught = true;
  }
}

TEST(Process, ExceptionPropagatesToAwaitingTask) {
  Simulator sim;
  bool caught = false;
  sim.spawn(catcher(sim, caught), "catcher");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_TRUE(caught);
}

Task<> waits_forever(Trigger& t) { co_await t.wait(); }

TEST(Process, WaitingWithNoEventsIsAStallNamingTheProcess) {
  Simulator sim;
  Trigger never(sim);
  sim.spawn(waits_forever(never), "npu.hvx0");
  EXPECT_EQ(sim.run(), RunResult::kStalled);
  EXPECT_EQ(sim.blocked_processes(), (std::vector<std::string>{"npu.hvx0"}));
  // Destroying the simulator frees the blocked frame (ASan would report a leak otherwise).
}

Task<> fire_after(Simulator& sim, Trigger& t, Tick d) {
  co_await sim.delay(d);
  t.fire();
}

Task<> wait_and_record(Simulator& sim, Trigger& t, std::vector<Tick>& when) {
  co_await t.wait();
  when.push_back(sim.now());
}

TEST(Sync, TriggerWakesAllWaitersAtFiringTime) {
  Simulator sim;
  Trigger t(sim);
  std::vector<Tick> when;
  sim.spawn(wait_and_record(sim, t, when), "w1");
  sim.spawn(wait_and_record(sim, t, when), "w2");
  sim.spawn(fire_after(sim, t, 42), "firer");
  sim.run();
  EXPECT_EQ(when, (std::vector<Tick>{42, 42}));
  EXPECT_EQ(t.fired_at(), 42u);
}

Task<> delay_task(Simulator& sim, Tick d) { co_await sim.delay(d); }

Task<> join_three(Simulator& sim, Tick& done_at) {
  TaskList v;
  v.push_back(delay_task(sim, 10));
  v.push_back(delay_task(sim, 30));
  v.push_back(delay_task(sim, 20));
  co_await when_all(sim, std::move(v));
  done_at = sim.now();
}

TEST(Sync, WhenAllCompletesWithTheSlowestChild) {
  Simulator sim;
  Tick done_at = 0;
  sim.spawn(join_three(sim, done_at), "join");
  sim.run();
  EXPECT_EQ(done_at, 30u);
}

TEST(Sync, WhenAllOfNothingCompletesImmediately) {
  Simulator sim;
  Tick done_at = 99;
  auto empty = [](Simulator& s, Tick& out) -> Task<> {
    co_await when_all(s, {});
    out = s.now();
  };
  sim.spawn(empty(sim, done_at), "empty");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_EQ(done_at, 0u);
}

// An awaiter's callbacks live in its coroutine's frame (Simulator::FrameEvent): they fire as
// callbacks do, in order with everything else, and kill_processes drops them with the frames
// (as it drops resumes) while other callbacks stay.
struct TwoStepAwaiter {
  Simulator& sim;
  std::vector<std::string>& log;
  std::coroutine_handle<> caller;
  Simulator::FrameEvent first{&on_first, this}, second{&on_second, this};
  static void on_first(void* p) {
    auto* me = static_cast<TwoStepAwaiter*>(p);
    me->log.push_back("first");
    me->sim.schedule_frame_event_at(me->sim.now() + 10, me->second);
  }
  static void on_second(void* p) {
    auto* me = static_cast<TwoStepAwaiter*>(p);
    me->log.push_back("second");
    me->sim.resume_at(me->sim.now(), me->caller);
  }
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    caller = h;
    sim.schedule_frame_event_at(sim.now() + 5, first);
  }
  void await_resume() const noexcept {}
};

Task<> two_steps(Simulator& sim, std::vector<std::string>& log) {
  co_await TwoStepAwaiter{sim, log, {}};
  log.push_back("resumed");
}

TEST(Process, FrameEventsFireInOrderAndGoWithKilledFrames) {
  {
    Simulator sim;
    std::vector<std::string> log;
    sim.spawn(two_steps(sim, log), "p");
    EXPECT_EQ(sim.run(), RunResult::kIdle);
    EXPECT_EQ(log, (std::vector<std::string>{"first", "second", "resumed"}));
    EXPECT_EQ(sim.now(), 15u);
  }
  Simulator sim;
  std::vector<std::string> log;
  sim.spawn(two_steps(sim, log), "p");
  sim.run(7);  // "first" fired; "second" is queued in the frame
  EXPECT_NE(sim.describe_pending(4).find("event of an awaiter inside a process"), std::string::npos) << sim.describe_pending(4);
  bool other = false;
  sim.call_at(20, [&] { other = true; });
  sim.kill_processes();
  EXPECT_EQ(sim.pending_events(), 1u);  // the plain callback stays
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_TRUE(other);
  EXPECT_EQ(log, std::vector<std::string>{"first"});  // ASan: nothing touched the freed frame
}

}  // namespace
}  // namespace socsim
