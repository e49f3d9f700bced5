#pragma once
// Host time spent in the kernels' arithmetic (functional mode), so the cost of everything around
// it (weight synthesis and quantization, tensor copies, the plan walk) can be told apart: `socsim
// bench` reports functional mode's wall time against it (issues #19 and #21). A scope counts its
// wall time on the calling thread into that thread's total, unless an enclosing scope already
// does (a kernel calling a kernel counts once); work a kernel fans out to other threads is inside
// its caller's wall time.
//
// Two clocks: the simulated system's kernels, and the FP32 reference forward that functional mode
// runs beside them to measure accuracy (its matmuls, attention and logits are as much arithmetic as
// the system's, but not the system's). The outermost scope's clock counts.
#include <cstdint>

namespace socsim::kernels {

enum class KernelClock { kSystem, kReference };

class ScopedKernelTime {
 public:
  explicit ScopedKernelTime(KernelClock clock = KernelClock::kSystem);
  ~ScopedKernelTime();
  ScopedKernelTime(const ScopedKernelTime&) = delete;
  ScopedKernelTime& operator=(const ScopedKernelTime&) = delete;

 private:
  std::int64_t start_ns_ = -1;  // -1: nested, not counted
  KernelClock clock_;
};

// Seconds counted on this thread so far on `clock`.
double kernel_seconds(KernelClock clock = KernelClock::kSystem);

}  // namespace socsim::kernels
