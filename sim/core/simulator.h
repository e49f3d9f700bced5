#pragma once
// The discrete-event kernel: simulated time, the event queue and the processes that run on it.
// Idle units cost nothing: a unit with no work schedules no events (SST's idle-clock rule).
#include <coroutine>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/task.h"
#include "sim/core/time.h"

namespace socsim {

enum class RunResult {
  kIdle,       // no event left and no process waiting: the simulation finished
  kStalled,    // no event left but processes are still waiting: a deadlock (see blocked_processes)
  kTimeLimit,  // stopped at the `until` bound with events still pending
  kNoProgress, // the watchdog: more than no_progress_limit() events fired without time advancing
               // (a livelock: processes waking each other at one instant forever)
};

const char* run_result_name(RunResult r);

class Simulator {
 public:
  Simulator() = default;
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  ~Simulator();

  Tick now() const { return now_; }
  std::uint64_t events_fired() const { return events_fired_; }
  // Events that replays of recorded runs saved (run_memo.h): a replay fires one event, a delay,
  // where the run it replays fired `events` on the simulator that recorded it (its process's start
  // left out); events_fired() + events_saved_by_replays() is what the run would have fired event
  // by event. A measure of the simulator's work, never of the simulated system.
  // Replays are taken only for runs of more than one event (npu_alone_replay.cpp, cpu_complex.cpp).
  void note_replay(std::uint64_t events) {
    if (events <= 1) throw std::logic_error("a replay of a run of " + std::to_string(events) + " events saves none");
    events_saved_by_replays_ += events - 1;
  }
  std::uint64_t events_saved_by_replays() const { return events_saved_by_replays_; }
  std::size_t pending_events() const { return queue_.size(); }
  // When the earliest pending event fires (events at now() included); kTickMax with none.
  Tick next_event_time() const { return queue_.empty() ? kTickMax : queue_.next_time(); }

  // Schedules fn(ctx) at absolute time t (t >= now(), else std::logic_error: time never runs back).
  void schedule_at(Tick t, EventFn fn, void* ctx);
  void schedule_in(Tick dt, EventFn fn, void* ctx) { schedule_at(checked_add(now_, dt), fn, ctx); }
  // Room for n more events (EventQueue::reserve): a batch of schedule calls that cannot fail midway.
  void reserve_events(std::size_t n) { queue_.reserve(n); }
  // Resumes a suspended coroutine at time t.
  void resume_at(Tick t, std::coroutine_handle<> h) { schedule_at(t, &resume_fn, h.address()); }
  // A callback that lives in a coroutine frame (an awaiter's), where `event` must stay until it
  // fires. kill_processes drops it with the frames, as it drops their resumes: a process killed
  // mid-await never has its awaiter called back.
  struct FrameEvent {
    EventFn fn;
    void* ctx;
  };
  void schedule_frame_event_at(Tick t, FrameEvent& event) { schedule_at(t, &run_frame_event, &event); }
  // Convenience for one-off callbacks (allocates; not for per-tile hot paths).
  template <class F>
  void call_at(Tick t, F&& f) {
    struct Holder final : Callback {
      explicit Holder(F&& fn) : fn(std::forward<F>(fn)) {}
      void run() override { fn(); }
      std::decay_t<F> fn;
    };
    auto holder = std::make_unique<Holder>(std::forward<F>(f));
    schedule_at(t, &run_callback, static_cast<Callback*>(holder.get()));  // may throw: holder still owns
    holder.release();
  }

  // Starts `task` as an independent process at the current time (after events already queued for
  // now()). The simulator owns its frame until it finishes. Returns the process id.
  std::uint64_t spawn(Task<> task, std::string_view name);
  // As spawn, but the process runs at once, inside the current event, up to its first suspension:
  // a process started from an event handler runs where a coroutine resumed there would.
  std::uint64_t spawn_now(Task<> task, std::string_view name);
  std::size_t live_processes() const { return live_processes_; }
  // Names of processes that have not finished, in spawn order (for deadlock reports).
  std::vector<std::string> blocked_processes() const;
  // The first `max` pending events in firing order, one line each ("at <time>: resume of process
  // 'x'" / "resume of a coroutine" / "callback"), then how many more: for watchdog reports.
  std::string describe_pending(std::size_t max) const;

  // Watchdog: run() returns kNoProgress after this many consecutive events at one instant.
  // Legitimate bursts are far smaller (a plan's jobs all starting at t=0 is ~10 events per job);
  // the default stops a livelock within a couple of seconds of wall time.
  static constexpr std::uint64_t kDefaultNoProgressLimit = 50'000'000;
  void set_no_progress_limit(std::uint64_t events) { no_progress_limit_ = events; }
  // Host memory guard: run() calls check_host_memory() (host_memory.h: the thread's limit, set by
  // ScopedHostMemoryLimit) every kHostMemoryCheckEvents events (a /proc read: a few microseconds
  // per 65536 events), which throws HostMemoryExceeded past it.
  static constexpr std::uint64_t kHostMemoryCheckEvents = 1u << 16;
  std::uint64_t no_progress_limit() const { return no_progress_limit_; }

  // Awaitable: `co_await sim.delay(dt)` resumes the caller dt later (dt = 0 yields to the events
  // already scheduled for now()).
  auto delay(Tick dt) {
    struct Awaiter {
      Simulator& sim;
      Tick dt;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) { sim.resume_at(sim.checked_add(sim.now_, dt), h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{*this, dt};
  }
  auto delay_until(Tick t) { return delay(t > now_ ? t - now_ : 0); }
  // A delay as a task, to run beside others in when_all.
  Task<> delay_task(Tick dt) { co_await delay(dt); }

  // Runs events in (time, sequence) order until none is left or the next one is later than
  // `until`. An exception escaping a process is rethrown from here.
  RunResult run(Tick until = kTickMax);

  // Destroys the frames of unfinished processes. Call it before destroying units those processes
  // reference (their locals' destructors may touch them); ~Simulator calls it too.
  void kill_processes();
  bool tearing_down() const { return tearing_down_; }

  Tick checked_add(Tick a, Tick b) const {
    if (b > kTickMax - a) throw TimeOverflow("simulated time overflows 64-bit picoseconds");
    return a + b;
  }

 private:
  friend struct detail::TaskPromiseBase;
  struct Callback {
    virtual ~Callback() = default;
    virtual void run() = 0;
  };
  // Owns the callback: runs it, then frees it. Pending ones are freed at teardown (recognized by
  // this function pointer).
  static void run_callback(void* p) {
    std::unique_ptr<Callback> cb(static_cast<Callback*>(p));
    cb->run();
  }
  static void resume_fn(void* addr) { std::coroutine_handle<>::from_address(addr).resume(); }
  static void run_frame_event(void* p) {
    const auto* e = static_cast<const FrameEvent*>(p);
    e->fn(e->ctx);
  }
  void process_finished(std::uint64_t id, std::coroutine_handle<> h, std::exception_ptr error) noexcept;

  struct ProcessInfo {
    std::coroutine_handle<> handle;  // null: the slot is free
    std::uint64_t id = 0;            // spawn order
    std::string name;
  };
  std::uint64_t start_process(Task<> task, std::string_view name, bool now = false);
  // Live processes in spawn order (reports and teardown; rare, so sorted on demand).
  std::vector<const ProcessInfo*> live_in_spawn_order() const;

  EventQueue queue_;
  Tick now_ = 0;
  std::uint64_t events_fired_ = 0;
  std::uint64_t events_saved_by_replays_ = 0;
  std::uint64_t no_progress_limit_ = kDefaultNoProgressLimit;
  std::uint64_t next_process_id_ = 0;
  // Process table: a slot per live process, reused once it ends (the promise holds its slot), so
  // spawning allocates nothing once the table has grown. Reports sort by spawn id.
  std::vector<ProcessInfo> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::size_t live_processes_ = 0;
  std::exception_ptr first_error_;
  bool tearing_down_ = false;
};

}  // namespace socsim
