#pragma once
// How units hand results to each other. The standard path (what vendor runtimes do out of the
// box, HeteroLLM 3.1/4.2): the host waits on the GPU with a queue drain (the next kernel then
// pays the queue restart) and copies GPU buffers to and from host memory (a fixed ~400 us each);
// a host thread waiting for another unit sleeps and wakes at the sleep granularity. Fast
// synchronization (HeteroLLM's) maps shared buffers once and polls a flag instead.
namespace socsim::runtime {

struct SyncPolicy {
  bool shared_buffers = false;  // GPU buffers mapped into host memory once: no copies
  bool poll = false;            // host waits by polling a flag (a core busy) instead of sleeping
  // HeteroLLM's fast synchronization (4.2), for hand-overs from the GPU: no queue drain (the next
  // kernel pays no restart), the host sleeps the GPU job's predicted remaining time (rounded down
  // to the sleep granularity so it never oversleeps) then polls the job's completion flag on one
  // mid core (hw::core_class; busy: energy). A consumer waits for its producer's own kernels only,
  // not for GPU work enqueued after them (the concurrent half of a split op). Use with
  // shared_buffers (the unified-memory pool: no copies).
  bool fast = false;
  // HeteroLLM's engine without fast synchronization (its ablation, 5.4): the runtime decider
  // dispatches kernel by kernel (4.3) and waits for each GPU kernel with a queue flush before it
  // moves on, so every GPU kernel pays a synchronization (at least gpu.sync_fixed) and the next
  // one the queue restart. Reconstruction: the paper names "synchronization and GPU kernel
  // submission" as the decode overhead fast sync removes, not how often the baseline syncs.
  bool flush_each_gpu_kernel = false;
};

}  // namespace socsim::runtime
