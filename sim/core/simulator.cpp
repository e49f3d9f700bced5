#include "sim/core/simulator.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "sim/core/host_memory.h"
#include "sim/core/run_progress.h"

namespace socsim {

void detail::TaskPromiseBase::finish_detached(Simulator* sim, std::uint64_t id, std::coroutine_handle<> h,
                                              std::exception_ptr error) noexcept {
  sim->process_finished(id, h, std::move(error));
}

void detail::TaskPromiseBase::report_error(Simulator* sim, std::exception_ptr error) noexcept {
  if (!sim->first_error_) sim->first_error_ = std::move(error);
}

Simulator::~Simulator() {
  kill_processes();
  // Free one-off callbacks that never fired.
  while (!queue_.empty()) {
    const EventQueue::Event e = queue_.pop();
    if (e.fn == &run_callback) delete static_cast<Callback*>(e.ctx);
  }
}

void Simulator::schedule_at(Tick t, EventFn fn, void* ctx) {
  if (t < now_) {
    throw std::logic_error("event scheduled in the past: at " + std::to_string(t) + " ps, now is " +
                           std::to_string(now_) + " ps");
  }
  queue_.push(t, fn, ctx);
}

std::uint64_t Simulator::spawn(Task<> task, std::string_view name) {
  if (!task.valid()) throw std::invalid_argument("spawn: empty task '" + std::string(name) + "'");
  return start_process(std::move(task), name);
}

std::uint64_t Simulator::spawn_now(Task<> task, std::string_view name) {
  if (!task.valid()) throw std::invalid_argument("spawn: empty task '" + std::string(name) + "'");
  return start_process(std::move(task), name, true);
}

std::uint64_t Simulator::start_process(Task<> task, std::string_view name, bool now) {
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
  } else {
    if (slots_.size() >= UINT32_MAX) throw std::length_error("spawn: more than 2^32 live processes");
    slots_.emplace_back();  // may throw: nothing taken yet
    slot = static_cast<std::uint32_t>(slots_.size() - 1);
    free_slots_.reserve(slots_.capacity());  // so the push_back in process_finished cannot throw
    free_slots_.push_back(slot);
  }
  // Into the free slot's own string, which keeps the capacity of the processes it held before: a
  // spawn per job allocated a name per job. May throw: nothing taken yet (the slot stays free).
  slots_[slot].name.assign(name);
  free_slots_.pop_back();
  auto handle = task.release();
  ProcessInfo& info = slots_[slot];
  info.handle = handle;
  info.id = next_process_id_++;
  handle.promise().owner = this;
  handle.promise().process_id = slot;
  ++live_processes_;
  const std::uint64_t id = info.id;  // the slot is freed if the process ends at once
  if (now) {
    handle.resume();
  } else {
    resume_at(now_, handle);
  }
  return id;
}

void Simulator::process_finished(std::uint64_t slot, std::coroutine_handle<> h, std::exception_ptr error) noexcept {
  if (error && !first_error_) first_error_ = error;
  ProcessInfo& info = slots_[slot];
  info.handle = {};
  info.name.clear();
  free_slots_.push_back(static_cast<std::uint32_t>(slot));  // capacity reserved in start_process
  --live_processes_;
  // Destroying the frame from inside its own final awaiter is allowed: the coroutine is suspended
  // at its final suspend point.
  h.destroy();
}

std::vector<const Simulator::ProcessInfo*> Simulator::live_in_spawn_order() const {
  std::vector<const ProcessInfo*> live;
  live.reserve(live_processes_);
  for (const ProcessInfo& p : slots_) {
    if (p.handle) live.push_back(&p);
  }
  std::sort(live.begin(), live.end(), [](const ProcessInfo* a, const ProcessInfo* b) { return a->id < b->id; });
  return live;
}

std::vector<std::string> Simulator::blocked_processes() const {
  std::vector<std::string> names;
  names.reserve(live_processes_);
  for (const ProcessInfo* p : live_in_spawn_order()) names.push_back(p->name);
  return names;
}

const char* run_result_name(RunResult r) {
  switch (r) {
    case RunResult::kIdle: return "finished";
    case RunResult::kStalled: return "deadlock: no event left while processes still wait";
    case RunResult::kTimeLimit: return "stopped at the time limit";
    case RunResult::kNoProgress: return "no progress: simulated time stopped advancing while events kept firing";
  }
  return "?";
}

std::string Simulator::describe_pending(std::size_t max) const {
  const auto events = queue_.pending_sorted();
  const auto live = live_in_spawn_order();
  std::string s;
  for (std::size_t i = 0; i < events.size() && i < max; ++i) {
    const auto& e = events[i];
    s += "  at " + std::to_string(e.time) + " ps: ";
    if (e.fn == &resume_fn) {
      std::string who = "resume of a coroutine inside a process";
      for (const ProcessInfo* info : live) {
        if (info->handle.address() == e.ctx) who = "resume of process '" + info->name + "'";
      }
      s += who;
    } else {
      s += e.fn == &run_callback ? "callback" : e.fn == &run_frame_event ? "event of an awaiter inside a process" : "unit event";
    }
    s += "\n";
  }
  if (events.size() > max) s += "  ... and " + std::to_string(events.size() - max) + " more\n";
  if (events.empty()) s += "  (none)\n";
  return s;
}

RunResult Simulator::run(Tick until) {
  std::uint64_t at_this_instant = 0;
  while (!queue_.empty()) {
    const Tick next = queue_.next_time();
    if (next > until) {
      now_ = until;
      return RunResult::kTimeLimit;
    }
    if (next != now_) {
      at_this_instant = 0;
    } else if (++at_this_instant > no_progress_limit_) {
      return RunResult::kNoProgress;  // the event stays queued, in place, for the report
    }
    const EventQueue::Event e = queue_.pop();
    now_ = e.time;
    ++events_fired_;
    if (events_fired_ % kHostMemoryCheckEvents == 0) progress_engine(events_fired_, now_);
    if (events_fired_ % kHostMemoryCheckEvents == 0 && host_checks_active()) {
      try {
        check_host_memory();
      } catch (...) {
        queue_.push(e.time, e.fn, e.ctx);  // not run: it stays queued for the teardown, as with the watchdog
        throw;
      }
    }
    e.fn(e.ctx);
    if (first_error_) std::rethrow_exception(std::exchange(first_error_, nullptr));
  }
  return live_processes_ == 0 ? RunResult::kIdle : RunResult::kStalled;
}

void Simulator::kill_processes() {
  tearing_down_ = true;
  // Destroy in reverse spawn order; a destroyed frame may own child tasks, which it destroys.
  while (live_processes_ > 0) {
    // By slot and id, not by pointer: a frame's destructor could in principle spawn (and grow the
    // table); the outer loop then takes those too.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> live;
    for (const ProcessInfo* p : live_in_spawn_order()) {
      live.emplace_back(p->id, static_cast<std::uint32_t>(p - slots_.data()));
    }
    for (auto it = live.rbegin(); it != live.rend(); ++it) {
      ProcessInfo& info = slots_[it->second];
      if (!info.handle || info.id != it->first) continue;
      auto handle = std::exchange(info.handle, {});
      info.name.clear();
      free_slots_.push_back(it->second);
      --live_processes_;
      handle.destroy();
    }
  }
  // Resumes aimed at the destroyed frames must never fire: every coroutine the engine resumes
  // belongs to some process, so all pending resumes go, and so do the callbacks of awaiters in
  // those frames (FrameEvent). Other callbacks stay, in their order.
  std::vector<EventQueue::Event> keep;
  for (const auto& e : queue_.pending_sorted()) {
    if (e.fn != &resume_fn && e.fn != &run_frame_event) keep.push_back(e);
  }
  queue_ = EventQueue();
  for (const auto& e : keep) queue_.push(e.time, e.fn, e.ctx);
  tearing_down_ = false;
}

}  // namespace socsim
