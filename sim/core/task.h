#pragma once
// Task<T>: a unit's behaviour written as a sequential process (C++20 coroutine).
//
//   Task<> hmx_tile_loop(Simulator& sim, ...) {
//     co_await sim.delay(setup);          // advance simulated time
//     auto lease = co_await hmx.acquire(); // wait in a FIFO queue
//     co_await dma.transfer(bytes);        // wait for a child task
//   }
//
// Tasks are lazy: nothing runs until the task is awaited by another task (which then resumes when
// the child finishes, by symmetric transfer, so deep chains do not grow the stack) or handed to
// Simulator::spawn (which runs it as an independent process). Results and exceptions propagate to
// the awaiting task.
#include <coroutine>
#include <cstdint>
#include <exception>
#include <optional>
#include <utility>

#include "sim/core/frame_pool.h"

namespace socsim {

class Simulator;

namespace detail {

struct TaskPromiseBase {
  std::coroutine_handle<> continuation;  // the awaiting task, if any
  std::exception_ptr error;
  // Set for spawned (detached) processes: the simulator that owns the frame.
  Simulator* owner = nullptr;
  std::uint64_t process_id = 0;
  // Set for when_all's children: an exception that ends the child is also the simulation's error
  // (Simulator::run rethrows it), as it is for a process; the awaiting join does not rethrow it.
  Simulator* error_sink = nullptr;

  // Frames come from recycled blocks (frame_pool.h): allocation per frame was a quarter of a run.
  static void* operator new(std::size_t bytes) { return allocate_frame(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { free_frame(p, bytes); }

  std::suspend_always initial_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }

  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      TaskPromiseBase& p = h.promise();
      if (p.continuation) {
        if (p.error && p.error_sink) {
          // A joined child that failed: the simulation's error; the join is not resumed (it
          // waits for ever, as a WaitGroup never signalled did), whoever catches the error.
          report_error(p.error_sink, p.error);
          return std::noop_coroutine();
        }
        return p.continuation;
      }
      if (p.owner) finish_detached(p.owner, p.process_id, h, p.error);
      return std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }

  // Defined in simulator.cpp: tells the simulator a process ended (and destroys its frame).
  static void finish_detached(Simulator* sim, std::uint64_t id, std::coroutine_handle<> h,
                              std::exception_ptr error) noexcept;
  static void report_error(Simulator* sim, std::exception_ptr error) noexcept;
};

template <class T>
struct TaskPromise : TaskPromiseBase {
  std::optional<T> value;
  template <class U>
  void return_value(U&& v) { value.emplace(std::forward<U>(v)); }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
  void return_void() noexcept {}
};

}  // namespace detail

template <class T = void>
class [[nodiscard]] Task {
 public:
  struct promise_type : detail::TaskPromise<T> {
    Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : handle_(h) {}
// GCC 12 reports false -Wstringop-overflow/-overread here when Tasks are moved out of a
// boost small_vector's inline buffer (TaskList): it assumes an unbounded element count.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
  Task(Task&& o) noexcept : handle_(o.handle_) { o.handle_ = {}; }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  bool valid() const { return static_cast<bool>(handle_); }

  // Awaiting a task starts it and resumes the awaiter when it finishes.
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle_.promise().continuation = awaiting;
    return handle_;
  }
  T await_resume() {
    auto& p = handle_.promise();
    if (p.error) std::rethrow_exception(p.error);
    if constexpr (!std::is_void_v<T>) return std::move(*p.value);
  }

  // Gives up ownership of the frame (used by Simulator::spawn, which then owns it).
  Handle release() { return std::exchange(handle_, {}); }

  // For a join (when_all) that owns the task and resumes it itself: the frame, which resumes
  // `continuation` when it finishes and reports an exception to `error_sink`.
  std::coroutine_handle<> joined_by(std::coroutine_handle<> continuation, Simulator* error_sink) {
    handle_.promise().continuation = continuation;
    handle_.promise().error_sink = error_sink;
    return handle_;
  }

 private:
  void reset() {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  Handle handle_;
};

}  // namespace socsim
