#pragma once
// An Adreno-class GPU behind one in-order OpenCL command queue (the PPL/MLC-OpenCL setting of
// HeteroLLM). Three costs HeteroLLM 3.1 measured on the 8 Gen 3 shape what the host sees:
//   - submitting a kernel costs the host `submit` (10-20 us) whatever the queue holds;
//   - after a synchronization emptied the queue, the next kernel pays `restart` (extra 50-100 us)
//     on the GPU before it starts: the queue went cold and must be re-armed;
//   - clEnqueueWriteBuffer of a buffer that is not shared costs `copy_fixed` (~400 us) plus the
//     bytes at `copy_bandwidth`.
// A kernel whose weights exceed `max_allocation` (one OpenCL buffer's limit) runs as one kernel
// per buffer, split along the output columns: each part pays `submit`, is timed on its own
// (smaller kernels reach a lower efficiency) and counts as a kernel in enqueued()/kernels().
// A kernel runs for max(compute time, DRAM time): its arithmetic (gpu_compute_model.h) and its
// DRAM traffic proceed concurrently, and the traffic is a flow in the shared DRAM model, so other
// masters streaming at the same time slow a memory-bound kernel down.
//
//   AdrenoGpu gpu(sim, soc.gpu, dram, dram.add_port("gpu", soc.gpu.port_bandwidth), &trace);
//   co_await gpu.enqueue({.name = "qkv", .flops = 2.0 * m * k * n, .dram_bytes = w, .rows = m});
//   co_await gpu.finish();
//
// Idle GPUs schedule nothing: a queue worker process exists only while kernels are queued.
// Teardown in either order is safe (GPU before or after the Simulator's process frames). After
// Simulator::kill_processes the kernel that was running counts as finished (abandoned) and kernels
// still queued run once the next one is enqueued.
#include <coroutine>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "sim/core/simulator.h"
#include "sim/core/statistics.h"
#include "sim/core/task.h"
#include "sim/core/time.h"
#include "sim/hw/gpu/gpu_kernel.h"
#include "sim/hw/gpu/gpu_spec.h"
#include "sim/hw/memory/dram_model.h"
#include "sim/report/trace.h"

namespace socsim::hw {

class AdrenoGpu {
 public:
  // `port` is the GPU's DRAM port (its cap is usually spec.port_bandwidth); `trace` may be null.
  // Throws std::invalid_argument for a spec with no FP16 throughput or a non-positive copy
  // bandwidth.
  AdrenoGpu(Simulator& sim, const GpuSpec& spec, DramModel& dram, PortId port, report::TraceRecorder* trace);
  ~AdrenoGpu();
  AdrenoGpu(const AdrenoGpu&) = delete;
  AdrenoGpu& operator=(const AdrenoGpu&) = delete;

  // Host side: costs `submit` on the caller, then the kernel joins the queue and runs after every
  // kernel enqueued before it. If a synchronization (finish()) drained the queue since the last
  // kernel, this kernel also pays `restart` on the GPU before it starts. Returns once submitted,
  // not when the kernel has run.
  Task<> enqueue(GpuKernel k);
  // The same for a caller that has just computed compute_time(k) (which is what `compute` must
  // be): not computed twice.
  Task<> enqueue(GpuKernel k, Tick compute);
  // enqueue(k, compute) as an awaiter, without a coroutine frame per kernel (the same event: the
  // caller resumes after `submit` and the kernel joins the queue then), for a kernel within
  // max_allocation (else std::logic_error: such a kernel is submitted per buffer, by enqueue).
  // Made by submit (which checks max_allocation), awaited once.
  class [[nodiscard]] Submission {
    friend class AdrenoGpu;
    Submission(AdrenoGpu& gpu, GpuKernel k, Tick compute) : gpu_(gpu), kernel_(std::move(k)), compute_(compute) {}

   public:
    Submission(const Submission&) = delete;
    Submission& operator=(const Submission&) = delete;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> caller) { gpu_.sim_.resume_at(gpu_.sim_.checked_add(gpu_.sim_.now(), gpu_.spec_.submit), caller); }
    void await_resume() { gpu_.push(std::move(kernel_), compute_); }

   private:
    AdrenoGpu& gpu_;
    GpuKernel kernel_;
    Tick compute_;
  };
  // The queue keeps the kernel's name only for a trace, where it is read (an untraced run copied
  // a name per kernel).
  Submission submit(const GpuKernel& k, Tick compute);

  // Synchronization (clFinish): returns when every kernel enqueued before the call has finished,
  // at that very tick (the runtime adds its own driver/copy costs). If the queue is then empty,
  // the next kernel pays `restart`.
  Task<> finish();

  // Returns when the first `count` kernels ever enqueued have finished, without draining the
  // queue: the completion flag a fast synchronization polls (HeteroLLM 4.2), so no `restart`
  // follows. count = enqueued() waits for everything submitted so far.
  Task<> wait_completed(std::uint64_t count);

  // Blocking clEnqueueWriteBuffer of an unshared buffer: copy_fixed + bytes / copy_bandwidth. It
  // is a memcpy on a unified-memory SoC, so 2 x bytes (read the source, write the copy) flow
  // through the GPU's DRAM port meanwhile; contention can make that the longer part. Copies do
  // not wait behind queued kernels (call finish() first when the data depends on them).
  Task<> copy(std::uint64_t bytes);

  // Compute-only time of a kernel on this GPU (no DRAM, no launch costs), for partition solvers;
  // a kernel split by max_allocation is the sum of its parts.
  Tick compute_time(const GpuKernel& k) const;

  // The kernels `k` runs as: itself, or one per max_allocation-sized share of its weights.
  std::vector<GpuKernel> allocation_parts(const GpuKernel& k) const;
  // Whether `k`'s weights need more than one buffer (gpu.max_allocation; 0 = no limit).
  bool exceeds_max_allocation(const GpuKernel& k) const;

  // Statistics. busy() covers kernel execution only (not restart gaps or copies).
  const BusyTime& busy() const { return busy_; }
  const BusyTime& copy_busy() const { return copy_busy_; }
  std::uint64_t kernels() const { return completed_; }  // finished kernels
  std::uint64_t enqueued() const { return enqueued_; }  // kernels submitted so far
  double flops_done() const { return flops_done_; }
  std::uint64_t copies() const { return copies_; }
  std::uint64_t copy_bytes() const { return copy_bytes_; }
  const GpuSpec& spec() const { return spec_; }

 private:
  struct Entry {
    GpuKernel kernel;
    Tick compute;   // compute-only time, computed (and checked) at enqueue
    bool restart;   // pays `restart` before it starts
  };
  struct CompletionWaiter;
  struct WorkerGuard;

  void push(GpuKernel k, Tick compute);
  Task<> run_queue();  // executes each kernel in its own body (no frame per kernel)
  void wake_waiters();
  bool idle() const { return queue_.empty() && !worker_running_; }

  Simulator& sim_;
  GpuSpec spec_;
  DramModel& dram_;
  PortId port_;
  report::TraceRecorder* trace_;

  std::deque<Entry> queue_;          // submitted, not started
  bool worker_running_ = false;      // a queue worker is spawned (set at spawn, before it starts)
  WorkerGuard* worker_ = nullptr;    // the running worker's frame guard, if any
  bool drained_by_sync_ = false;     // a finish() left the queue empty: the next kernel restarts
  std::vector<CompletionWaiter*> waiters_;

  BusyTime busy_;
  BusyTime copy_busy_;
  std::uint64_t enqueued_ = 0;
  std::uint64_t completed_ = 0;
  double flops_done_ = 0;
  std::uint64_t copies_ = 0;
  std::uint64_t copy_bytes_ = 0;
};

}  // namespace socsim::hw
