// The kernels' host time: a scope adds its wall time to its thread's total, a nested scope is not
// counted twice, and another thread's scopes do not count here.
#include "kernels/tensor/kernel_time.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace socsim::kernels {
namespace {

void busy_for(std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

TEST(KernelTime, NestedScopesCountOnceAndOnlyOnTheirThread) {
  const double before = kernel_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  {
    const ScopedKernelTime outer;
    busy_for(std::chrono::milliseconds(20));
    {
      const ScopedKernelTime inner;  // a kernel calling a kernel
      busy_for(std::chrono::milliseconds(20));
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double counted = kernel_seconds() - before;
  EXPECT_GE(counted, 0.039);
  EXPECT_LE(counted, wall);  // counted twice it would exceed the wall time
  std::thread other([] {
    const ScopedKernelTime elsewhere;
    busy_for(std::chrono::milliseconds(10));
  });
  other.join();
  EXPECT_DOUBLE_EQ(kernel_seconds() - before, counted);
  busy_for(std::chrono::milliseconds(5));  // outside any scope
  EXPECT_DOUBLE_EQ(kernel_seconds() - before, counted);
}

// The reference forward's clock is its own; a system kernel called inside a reference scope (the
// reference logits through the same Linear) counts on the reference clock, the outermost scope's.
TEST(KernelTime, TheReferenceClockIsSeparateAndTheOutermostScopeDecides) {
  const double system_before = kernel_seconds(), reference_before = kernel_seconds(KernelClock::kReference);
  {
    const ScopedKernelTime reference(KernelClock::kReference);
    busy_for(std::chrono::milliseconds(10));
    const ScopedKernelTime inner;  // system clock, but nested
    busy_for(std::chrono::milliseconds(10));
  }
  EXPECT_DOUBLE_EQ(kernel_seconds() - system_before, 0.0);
  EXPECT_GE(kernel_seconds(KernelClock::kReference) - reference_before, 0.019);
  {
    const ScopedKernelTime system;
    busy_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(kernel_seconds() - system_before, 0.0049);
}

}  // namespace
}  // namespace socsim::kernels
