#include "sim/hw/gpu/adreno_gpu.h"

#include <coroutine>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/hw/gpu/gpu_compute_model.h"

namespace socsim::hw {

// The awaiter of wait_completed(). It lives in the suspended coroutine's frame and the GPU points
// at it, so either can go first: the GPU resumes it (and forgets it), the frame is destroyed
// mid-wait (it deregisters), or the GPU is destroyed (it detaches every waiter).
struct AdrenoGpu::CompletionWaiter {
  CompletionWaiter(AdrenoGpu& g, std::uint64_t n) : gpu(&g), count(n) {}
  CompletionWaiter(const CompletionWaiter&) = delete;
  CompletionWaiter& operator=(const CompletionWaiter&) = delete;
  ~CompletionWaiter() {
    if (gpu && registered) std::erase(gpu->waiters_, this);
  }
  bool await_ready() const noexcept { return gpu->completed_ >= count; }
  void await_suspend(std::coroutine_handle<> h) {
    handle = h;
    registered = true;
    gpu->waiters_.push_back(this);
  }
  void await_resume() const noexcept {}

  AdrenoGpu* gpu;
  std::uint64_t count;
  bool registered = false;
  std::coroutine_handle<> handle;
};

// Lives in the queue worker's frame: when the worker ends, or its frame is destroyed (killed
// processes, teardown), the GPU learns that no worker runs, so the next kernel spawns one.
struct AdrenoGpu::WorkerGuard {
  explicit WorkerGuard(AdrenoGpu& g) : gpu(&g) { gpu->worker_ = this; }
  WorkerGuard(const WorkerGuard&) = delete;
  WorkerGuard& operator=(const WorkerGuard&) = delete;
  ~WorkerGuard() {
    if (!gpu) return;
    gpu->worker_ = nullptr;
    gpu->worker_running_ = false;
    if (in_flight) {  // killed mid-kernel: that kernel is abandoned, but counted so finish() works
      ++gpu->completed_;
      if (gpu->busy_.active()) gpu->busy_.end(gpu->sim_.now());
    }
  }
  AdrenoGpu* gpu;
  bool in_flight = false;  // between taking a kernel off the queue and counting it finished
};

AdrenoGpu::AdrenoGpu(Simulator& sim, const GpuSpec& spec, DramModel& dram, PortId port,
                     report::TraceRecorder* trace)
    : sim_(sim), spec_(spec), dram_(dram), port_(port), trace_(trace) {
  (void)gpu_peak_flops_per_s(spec_, DType::kFp16);  // throws for a spec without throughput
  if (!(spec_.copy_bandwidth > 0)) throw std::invalid_argument("gpu: copy_bandwidth must be > 0");
  (void)dram_.port_busy(port_);  // throws for an unknown port
}

AdrenoGpu::~AdrenoGpu() {
  for (CompletionWaiter* w : waiters_) w->gpu = nullptr;
  if (worker_) worker_->gpu = nullptr;
}

bool AdrenoGpu::exceeds_max_allocation(const GpuKernel& k) const { return gpu_exceeds_max_allocation(spec_, k); }

std::vector<GpuKernel> AdrenoGpu::allocation_parts(const GpuKernel& k) const { return gpu_allocation_parts(spec_, k); }

Tick AdrenoGpu::compute_time(const GpuKernel& k) const { return gpu_kernel_compute_time(spec_, k); }

Task<> AdrenoGpu::enqueue(GpuKernel k) {
  if (exceeds_max_allocation(k)) {
    std::vector<GpuKernel> parts = allocation_parts(k);
    std::vector<Tick> compute;
    for (const GpuKernel& p : parts) compute.push_back(gpu_compute_time(spec_, p));  // fail before time passes
    for (std::size_t i = 0; i < parts.size(); ++i) {
      co_await sim_.delay(spec_.submit);
      push(std::move(parts[i]), compute[i]);
    }
    co_return;
  }
  const Tick compute = compute_time(k);  // a bad kernel fails in the caller, before any time passes
  co_await sim_.delay(spec_.submit);
  push(std::move(k), compute);
}

Task<> AdrenoGpu::enqueue(GpuKernel k, Tick compute) {
  if (exceeds_max_allocation(k)) {
    co_await enqueue(std::move(k));  // one kernel per buffer, each with its own time
    co_return;
  }
  co_await sim_.delay(spec_.submit);
  push(std::move(k), compute);
}

AdrenoGpu::Submission AdrenoGpu::submit(const GpuKernel& k, Tick compute) {
  if (exceeds_max_allocation(k)) throw std::logic_error("gpu: kernel '" + k.name + "' exceeds max_allocation: submit it with enqueue()");
  return Submission(*this, report::tracing_hardware(trace_) ? k : unnamed(k), compute);
}

void AdrenoGpu::push(GpuKernel k, Tick compute) {
  // A kernel arriving after a finish() finds the queue cold: it pays the restart. Any arrival
  // clears the state (the flag is only ever set while the GPU is idle).
  const bool restart = std::exchange(drained_by_sync_, false);
  queue_.push_back({std::move(k), compute, restart});
  ++enqueued_;
  // The queue's depth as a trace counter: submitted and not yet completed kernels.
  if (report::tracing_hardware(trace_)) trace_->hardware_counter("gpu.queue_depth", sim_.now(), static_cast<double>(enqueued_ - completed_));
  if (!worker_running_) {
    worker_running_ = true;
    sim_.spawn(run_queue(), "gpu.queue");
  }
}

Task<> AdrenoGpu::run_queue() {
  WorkerGuard guard(*this);
  while (!queue_.empty()) {
    Entry e = std::move(queue_.front());
    queue_.pop_front();
    guard.in_flight = true;
    if (e.restart) co_await sim_.delay(spec_.restart);
    const Tick start = sim_.now();
    busy_.begin(start);
    co_await dram_.compute_beside_flow(e.compute, port_, e.kernel.dram_bytes);  // done when both are
    busy_.end(sim_.now());
    if (report::tracing_hardware(trace_)) trace_->hardware_span("gpu", e.kernel.name.empty() ? "kernel" : e.kernel.name, start, sim_.now());
    guard.in_flight = false;
    ++completed_;
    if (report::tracing_hardware(trace_)) trace_->hardware_counter("gpu.queue_depth", sim_.now(), static_cast<double>(enqueued_ - completed_));
    flops_done_ += e.kernel.flops;
    wake_waiters();
  }
}

void AdrenoGpu::wake_waiters() {
  // Waiters resume through the event queue at this tick, in registration order.
  std::erase_if(waiters_, [this](CompletionWaiter* w) {
    if (w->count > completed_) return false;
    w->registered = false;
    sim_.resume_at(sim_.now(), w->handle);
    return true;
  });
}

Task<> AdrenoGpu::wait_completed(std::uint64_t count) { co_await CompletionWaiter(*this, count); }

Task<> AdrenoGpu::finish() {
  co_await CompletionWaiter(*this, enqueued_);
  // Kernels may have been submitted meanwhile by other processes; only an empty queue goes cold.
  if (idle()) drained_by_sync_ = true;
}

Task<> AdrenoGpu::copy(std::uint64_t bytes) {
  const Tick start = sim_.now();
  copy_busy_.begin(start);
  co_await sim_.delay(spec_.copy_fixed);
  const Tick stream = gpu_duration(static_cast<double>(bytes), spec_.copy_bandwidth);
  co_await dram_.compute_beside_flow(stream, port_, 2 * bytes);
  copy_busy_.end(sim_.now());
  ++copies_;
  copy_bytes_ += bytes;
  if (report::tracing_hardware(trace_)) trace_->hardware_span("gpu.copy", "copy", start, sim_.now());
}

}  // namespace socsim::hw
