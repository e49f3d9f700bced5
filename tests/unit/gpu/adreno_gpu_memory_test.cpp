// The GPU and shared DRAM: host-to-device copies (HeteroLLM 3.1: ~400 us fixed), another master
// slowing a memory-bound kernel, and teardown with work in flight. Spec: gpu_test_spec.h (copy
// 400 us + bytes at 16 GB/s; GPU DRAM port 40 GB/s; submit 15 us).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/hw/gpu/adreno_gpu.h"
#include "tests/unit/gpu/gpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::kGB;
using testing::small_gpu_spec;

constexpr Tick us = kMicrosecond;
constexpr Tick ms = kMillisecond;

GpuKernel kernel(double flops, std::uint64_t dram_bytes) {
  GpuKernel k;
  k.name = "k";
  k.flops = flops;
  k.dram_bytes = dram_bytes;
  return k;
}

Task<> timed_copy(Simulator& sim, AdrenoGpu& gpu, std::uint64_t bytes, Tick& done) {
  co_await gpu.copy(bytes);
  done = sim.now();
}

TEST(AdrenoGpuMemory, CopyCostsFixedPlusBytes) {
  Simulator sim;
  DramModel dram(sim, 60 * kGB);
  const PortId port = dram.add_port("gpu", 40 * kGB);
  report::TraceRecorder trace;
  AdrenoGpu gpu(sim, small_gpu_spec(), dram, port, &trace);
  Tick small = 0, large = 0;
  // 4 KiB: 400 us + 4096 B / 16 GB/s (256 ns) = 400.256 us.
  sim.spawn(timed_copy(sim, gpu, 4096, small), "small");
  sim.run();
  EXPECT_EQ(small, 400 * us + 256 * kNanosecond);
  // 4 MB from 400.256 us: 400 us + 4e6 / 16e9 = 250 us, while 2 x 4 MB move through DRAM at
  // 40 GB/s in 200 us: the copy bandwidth binds -> 650 us later.
  sim.spawn(timed_copy(sim, gpu, 4'000'000, large), "large");
  sim.run();
  EXPECT_EQ(large - small, 650 * us);
  EXPECT_EQ(dram.port_bytes(port), 2u * (4096 + 4'000'000));
  EXPECT_EQ(gpu.copies(), 2u);
  EXPECT_EQ(gpu.copy_bytes(), 4'004'096u);
  EXPECT_EQ(gpu.copy_busy().busy(sim.now()), 1050 * us + 256 * kNanosecond);
  EXPECT_EQ(gpu.busy().busy(sim.now()), 0u);  // copies are not kernel time
  ASSERT_EQ(trace.spans().size(), 2u);
  EXPECT_EQ(trace.spans()[1].track, "gpu.copy");
}

TEST(AdrenoGpuMemory, CopySlowedWhenDramIsShared) {
  Simulator sim;
  DramModel dram(sim, 50 * kGB);
  const PortId port = dram.add_port("gpu", 40 * kGB);
  const PortId npu = dram.add_port("npu", 40 * kGB);
  AdrenoGpu gpu(sim, small_gpu_spec(), dram, port, nullptr);
  Tick done = 0;
  // The NPU streams 100 MB from t = 0 (alone at 40 GB/s until the copy's DRAM part starts at
  // 400 us). Then 50 GB/s shared max-min fairly: 25 GB/s each, so the copy's 8 MB take 320 us >
  // 250 us at the copy bandwidth: done at 720 us.
  dram.start_flow(npu, 100'000'000, nullptr, nullptr);
  sim.spawn(timed_copy(sim, gpu, 4'000'000, done), "copy");
  sim.run();
  EXPECT_EQ(done, 720 * us);
}

Task<> one_kernel(AdrenoGpu& gpu, GpuKernel k) { co_await gpu.enqueue(std::move(k)); }

TEST(AdrenoGpuMemory, AnotherMasterSlowsAMemoryBoundKernel) {
  // Alone: 300 MB at the 40 GB/s port cap = 7.5 ms (compute 4 ms): [15 us, 7.515 ms].
  Tick alone = 0;
  {
    Simulator sim;
    DramModel dram(sim, 60 * kGB);
    const PortId port = dram.add_port("gpu", 40 * kGB);
    report::TraceRecorder trace;
    AdrenoGpu gpu(sim, small_gpu_spec(), dram, port, &trace);
    sim.spawn(one_kernel(gpu, kernel(1e9, 300'000'000)), "host");
    sim.run();
    alone = trace.spans().at(0).end;
  }
  EXPECT_EQ(alone, 7 * ms + 515 * us);
  // With the NPU reading 150 MB from the moment the kernel starts (15 us): 60 GB/s shared fairly,
  // 30 GB/s each. The NPU finishes after 150 MB / 30 GB/s = 5 ms; the GPU has then moved 150 MB
  // and moves its other 150 MB alone at 40 GB/s in 3.75 ms: ends at 15 us + 8.75 ms = 8.765 ms,
  // 1.25 ms later than alone.
  Simulator sim;
  DramModel dram(sim, 60 * kGB);
  const PortId port = dram.add_port("gpu", 40 * kGB);
  const PortId npu = dram.add_port("npu", 40 * kGB);
  report::TraceRecorder trace;
  AdrenoGpu gpu(sim, small_gpu_spec(), dram, port, &trace);
  sim.spawn(one_kernel(gpu, kernel(1e9, 300'000'000)), "host");
  sim.call_at(15 * us, [&] { dram.start_flow(npu, 150'000'000, nullptr, nullptr); });
  sim.run();
  EXPECT_EQ(trace.spans().at(0).end, 8 * ms + 765 * us);
  EXPECT_EQ(trace.spans().at(0).end - alone, 1250 * us);
}

Task<> enqueue_and_finish(AdrenoGpu& gpu, GpuKernel k) {
  co_await gpu.enqueue(std::move(k));
  co_await gpu.finish();
}

TEST(AdrenoGpuMemory, GpuDestroyedBeforeTheSimulatorWithWorkInFlight) {
  // The usual declaration order: the GPU dies first, then ~Simulator destroys the suspended queue
  // worker and the finish() waiter. ASan checks that neither touches the dead GPU.
  Simulator sim;
  DramModel dram(sim, 60 * kGB);
  const PortId port = dram.add_port("gpu", 40 * kGB);
  auto gpu = std::make_unique<AdrenoGpu>(sim, small_gpu_spec(), dram, port, nullptr);
  sim.spawn(enqueue_and_finish(*gpu, kernel(1e9, 300'000'000)), "host");
  sim.run(1 * ms);
  EXPECT_EQ(gpu->enqueued(), 1u);
  EXPECT_EQ(gpu->kernels(), 0u);
  gpu.reset();
}

TEST(AdrenoGpuMemory, KilledWorkIsAbandonedAndTheQueueRecovers) {
  Simulator sim;
  DramModel dram(sim, 60 * kGB);
  const PortId port = dram.add_port("gpu", 40 * kGB);
  report::TraceRecorder trace;
  AdrenoGpu gpu(sim, small_gpu_spec(), dram, port, &trace);
  sim.spawn(enqueue_and_finish(gpu, kernel(1e9, 0)), "host");
  sim.run(1 * ms);
  sim.kill_processes();  // the kernel (started at 15 us) and the finish() waiter are gone
  EXPECT_EQ(gpu.kernels(), 1u);  // counted as finished (abandoned) so later syncs complete
  EXPECT_EQ(gpu.busy().busy(sim.now()), 1 * ms - 15 * us);
  // A new kernel from 1 ms: submit 15 us, no restart (nobody finished a sync), 4 ms -> 5.015 ms.
  sim.spawn(enqueue_and_finish(gpu, kernel(1e9, 0)), "host2");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  ASSERT_EQ(trace.spans().size(), 1u);
  EXPECT_EQ(trace.spans()[0].start, 1 * ms + 15 * us);
  EXPECT_EQ(trace.spans()[0].end, 5 * ms + 15 * us);
  EXPECT_EQ(gpu.kernels(), 2u);
}

TEST(AdrenoGpuMemory, ConstructorChecks) {
  Simulator sim;
  DramModel dram(sim, 60 * kGB);
  const PortId port = dram.add_port("gpu", 40 * kGB);
  GpuSpec no_clock = small_gpu_spec();
  no_clock.clock_hz = 0;
  EXPECT_THROW(AdrenoGpu(sim, no_clock, dram, port, nullptr), std::invalid_argument);
  GpuSpec no_copy = small_gpu_spec();
  no_copy.copy_bandwidth = 0;
  EXPECT_THROW(AdrenoGpu(sim, no_copy, dram, port, nullptr), std::invalid_argument);
  EXPECT_THROW(AdrenoGpu(sim, small_gpu_spec(), dram, port + 1, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::hw
