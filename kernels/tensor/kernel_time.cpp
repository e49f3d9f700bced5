#include "kernels/tensor/kernel_time.h"

#include <chrono>

namespace socsim::kernels {

namespace {

thread_local int t_depth = 0;
thread_local std::int64_t t_total_ns[2] = {0, 0};  // by KernelClock

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ScopedKernelTime::ScopedKernelTime(KernelClock clock) : clock_(clock) {
  if (t_depth++ == 0) start_ns_ = now_ns();
}

ScopedKernelTime::~ScopedKernelTime() {
  --t_depth;
  if (start_ns_ >= 0) t_total_ns[static_cast<int>(clock_)] += now_ns() - start_ns_;
}

double kernel_seconds(KernelClock clock) { return static_cast<double>(t_total_ns[static_cast<int>(clock)]) * 1e-9; }

}  // namespace socsim::kernels
