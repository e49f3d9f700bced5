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
};

}  // namespace socsim::runtime
