// The GPU's command queue against hand-computed timings: compute- and memory-bound kernels,
// in-order execution, submit while busy versus restart after a synchronization (HeteroLLM 3.1),
// and statistics. Spec (gpu_test_spec.h): FP16 1e12 FLOP/s x efficiency 0.5 x flops/(flops+1e9);
// submit 15 us, restart 75 us; DRAM 60 GB/s, GPU port 40 GB/s.
#include "sim/hw/gpu/adreno_gpu.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/gpu/gpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::kGB;
using testing::small_gpu_spec;

struct Rig {
  Simulator sim;
  DramModel dram{sim, 60 * kGB};
  PortId port = dram.add_port("gpu", 40 * kGB);
  report::TraceRecorder trace;
  AdrenoGpu gpu{sim, small_gpu_spec(), dram, port, &trace};
};

// 1e9 FLOP: efficiency 0.25 -> 4 ms of compute. 3e9 FLOP: 0.375 -> 8 ms.
GpuKernel kernel(std::string name, double flops, std::uint64_t dram_bytes = 0) {
  GpuKernel k;
  k.name = std::move(name);
  k.flops = flops;
  k.dram_bytes = dram_bytes;
  return k;
}

constexpr Tick us = kMicrosecond;
constexpr Tick ms = kMillisecond;

// Span [start, end] of the kernel named `name` on the "gpu" track.
std::pair<Tick, Tick> span_of(const report::TraceRecorder& trace, const std::string& name) {
  for (const auto& s : trace.spans()) {
    if (s.track == "gpu" && s.name == name) return {s.start, s.end};
  }
  ADD_FAILURE() << "no gpu span " << name;
  return {0, 0};
}

Task<> enqueue_all(Simulator& sim, AdrenoGpu& gpu, std::vector<GpuKernel> ks, std::vector<Tick>& host) {
  for (auto& k : ks) {
    co_await gpu.enqueue(std::move(k));
    host.push_back(sim.now());
  }
}

TEST(AdrenoGpuQueue, ComputeBoundKernel) {
  Rig r;
  std::vector<Tick> host;
  // 1e9 FLOP -> 4 ms compute; 1 MB at 40 GB/s -> 25 us of DRAM: compute binds.
  r.sim.spawn(enqueue_all(r.sim, r.gpu, {kernel("a", 1e9, 1'000'000)}, host), "host");
  EXPECT_EQ(r.sim.run(), RunResult::kIdle);
  EXPECT_EQ(host, std::vector<Tick>{15 * us});  // the host pays submit only
  // Starts once submitted (15 us), runs 4 ms.
  EXPECT_EQ(span_of(r.trace, "a"), std::make_pair(15 * us, 4 * ms + 15 * us));
  EXPECT_EQ(r.gpu.busy().busy(r.sim.now()), 4 * ms);
  EXPECT_EQ(r.gpu.kernels(), 1u);
  EXPECT_DOUBLE_EQ(r.gpu.flops_done(), 1e9);
  EXPECT_EQ(r.dram.port_bytes(r.port), 1'000'000u);
}

TEST(AdrenoGpuQueue, MemoryBoundKernelRunsAtThePortCap) {
  Rig r;
  std::vector<Tick> host;
  // 4 ms of compute, but 400 MB at the 40 GB/s port cap (DRAM peak 60) = 10 ms: DRAM binds.
  r.sim.spawn(enqueue_all(r.sim, r.gpu, {kernel("m", 1e9, 400'000'000)}, host), "host");
  r.sim.run();
  EXPECT_EQ(span_of(r.trace, "m"), std::make_pair(15 * us, 10 * ms + 15 * us));
  EXPECT_EQ(r.dram.total_bytes(), 400'000'000u);
}

TEST(AdrenoGpuQueue, TwoKernelsRunInOrder) {
  Rig r;
  std::vector<Tick> host;
  // Host: submits at 15 and 30 us. A: [15 us, 4.015 ms]. B (submitted while A runs, no restart)
  // waits for A, then 8 ms: [4.015, 12.015] ms.
  r.sim.spawn(enqueue_all(r.sim, r.gpu, {kernel("A", 1e9), kernel("B", 3e9)}, host), "host");
  r.sim.run();
  EXPECT_EQ(host, (std::vector<Tick>{15 * us, 30 * us}));
  EXPECT_EQ(span_of(r.trace, "A"), std::make_pair(15 * us, 4 * ms + 15 * us));
  EXPECT_EQ(span_of(r.trace, "B"), std::make_pair(4 * ms + 15 * us, 12 * ms + 15 * us));
  EXPECT_EQ(r.gpu.kernels(), 2u);
  EXPECT_EQ(r.gpu.busy().busy(r.sim.now()), 12 * ms);
}

Task<> a_finish_b(Simulator& sim, AdrenoGpu& gpu, Tick& finished_at) {
  co_await gpu.enqueue(kernel("A", 1e9));
  co_await gpu.finish();
  finished_at = sim.now();
  co_await gpu.enqueue(kernel("B", 1e9));
}

TEST(AdrenoGpuQueue, SubmitAfterSyncPaysRestart) {
  Rig r;
  Tick finished_at = 0;
  r.sim.spawn(a_finish_b(r.sim, r.gpu, finished_at), "host");
  r.sim.run();
  // A ends at 15 us + 4 ms; finish() returns then. B: submit 15 us, then restart 75 us on the
  // GPU: starts 4.015 + 0.015 + 0.075 = 4.105 ms, ends 8.105 ms.
  EXPECT_EQ(finished_at, 4 * ms + 15 * us);
  EXPECT_EQ(span_of(r.trace, "B"), std::make_pair(4 * ms + 105 * us, 8 * ms + 105 * us));
  // The restart gap is not busy time.
  EXPECT_EQ(r.gpu.busy().busy(r.sim.now()), 8 * ms);
}

TEST(AdrenoGpuQueue, SubmitWhileBusyPaysNoRestart) {
  Rig r;
  std::vector<Tick> host;
  // Same kernels without the finish(): B is submitted at 30 us while A runs and starts the moment
  // A ends (4.015 ms), 90 us earlier than after a sync.
  r.sim.spawn(enqueue_all(r.sim, r.gpu, {kernel("A", 1e9), kernel("B", 1e9)}, host), "host");
  r.sim.run();
  EXPECT_EQ(span_of(r.trace, "B"), std::make_pair(4 * ms + 15 * us, 8 * ms + 15 * us));
}

Task<> a_sleep_b(Simulator& sim, AdrenoGpu& gpu) {
  co_await gpu.enqueue(kernel("A", 1e9));
  co_await sim.delay(10 * ms);
  co_await gpu.enqueue(kernel("B", 1e9));
}

TEST(AdrenoGpuQueue, QueueThatRanDryWithoutSyncPaysNoRestart) {
  Rig r;
  r.sim.spawn(a_sleep_b(r.sim, r.gpu), "host");
  r.sim.run();
  // A ends at 4.015 ms with nobody synchronizing. B submitted at 15 us + 10 ms + 15 us = 10.03 ms
  // starts at once.
  EXPECT_EQ(span_of(r.trace, "B"), std::make_pair(10 * ms + 30 * us, 14 * ms + 30 * us));
}

Task<> finish_then_two(Simulator& sim, AdrenoGpu& gpu, Tick& finished_at) {
  co_await gpu.finish();  // nothing queued: returns at once, but the queue is now cold
  finished_at = sim.now();
  co_await gpu.enqueue(kernel("B", 1e9));
  co_await gpu.enqueue(kernel("C", 1e9));
}

TEST(AdrenoGpuQueue, RestartIsPaidOnceAfterASync) {
  Rig r;
  Tick finished_at = 1;
  r.sim.spawn(finish_then_two(r.sim, r.gpu, finished_at), "host");
  r.sim.run();
  EXPECT_EQ(finished_at, 0u);
  // B: submitted at 15 us, restart 75 us -> [90 us, 4.09 ms]. C: submitted at 30 us into a busy
  // queue, no restart -> [4.09, 8.09] ms.
  EXPECT_EQ(span_of(r.trace, "B"), std::make_pair(90 * us, 4 * ms + 90 * us));
  EXPECT_EQ(span_of(r.trace, "C"), std::make_pair(4 * ms + 90 * us, 8 * ms + 90 * us));
}

Task<> a_wait_b(Simulator& sim, AdrenoGpu& gpu, Tick& waited_at) {
  co_await gpu.enqueue(kernel("A", 1e9));
  co_await gpu.wait_completed(gpu.enqueued());
  waited_at = sim.now();
  co_await gpu.enqueue(kernel("B", 1e9));
}

TEST(AdrenoGpuQueue, FlagWaitDoesNotDrainTheQueue) {
  Rig r;
  Tick waited_at = 0;
  r.sim.spawn(a_wait_b(r.sim, r.gpu, waited_at), "host");
  r.sim.run();
  // The fast-sync completion wait returns when A ends (4.015 ms); B pays submit only: 4.03 ms.
  EXPECT_EQ(waited_at, 4 * ms + 15 * us);
  EXPECT_EQ(span_of(r.trace, "B"), std::make_pair(4 * ms + 30 * us, 8 * ms + 30 * us));
}

Task<> finish_at(Simulator& sim, AdrenoGpu& gpu, Tick& at) {
  co_await gpu.finish();
  at = sim.now();
}

TEST(AdrenoGpuQueue, FinishWaitsOnlyForKernelsEnqueuedBeforeIt) {
  Rig r;
  std::vector<Tick> host;
  Tick finished_at = 0;
  // Host 1 submits A (in the queue at 15 us) and B (at 30 us). Host 2 calls finish() at 20 us:
  // only A counts, so it returns when A ends, 4.015 ms, although B still runs: no restart for
  // anyone.
  r.sim.spawn(enqueue_all(r.sim, r.gpu, {kernel("A", 1e9), kernel("B", 1e9)}, host), "host1");
  r.sim.call_at(20 * us, [&] { r.sim.spawn(finish_at(r.sim, r.gpu, finished_at), "host2"); });
  r.sim.run();
  EXPECT_EQ(finished_at, 4 * ms + 15 * us);
  EXPECT_EQ(span_of(r.trace, "B"), std::make_pair(4 * ms + 15 * us, 8 * ms + 15 * us));
}

TEST(AdrenoGpuQueue, UnnamedKernelsAreTracedAsKernel) {
  Rig r;
  std::vector<Tick> host;
  r.sim.spawn(enqueue_all(r.sim, r.gpu, {kernel("", 1e9)}, host), "host");
  r.sim.run();
  ASSERT_EQ(r.trace.spans().size(), 1u);
  EXPECT_EQ(r.trace.spans()[0].name, "kernel");
}

TEST(AdrenoGpuQueue, BadKernelFailsInTheCaller) {
  Rig r;
  std::vector<Tick> host;
  r.sim.spawn(enqueue_all(r.sim, r.gpu, {kernel("bad", -1)}, host), "host");
  EXPECT_THROW(r.sim.run(), std::invalid_argument);
  EXPECT_EQ(r.gpu.enqueued(), 0u);
}

TEST(AdrenoGpuQueue, ComputeTimeMatchesTheModel) {
  Rig r;
  EXPECT_EQ(r.gpu.compute_time(kernel("a", 1e9)), 4 * ms);
  EXPECT_EQ(r.gpu.compute_time(kernel("b", 3e9)), 8 * ms);
}

// Weights beyond max_allocation (1 GiB here) live in several OpenCL buffers: one kernel per
// buffer. 2.5 GiB of weights -> 3 parts of 1e9 FLOP each, 4 ms apiece instead of 8 ms for the
// whole 3e9 FLOP (the efficiency curve punishes the smaller kernels), each submitted (15 us).
TEST(AdrenoGpuQueue, WeightsBeyondMaxAllocationRunAsOneKernelPerBuffer) {
  Rig r;
  GpuKernel big = kernel("w", 3e9, 3'000'000);
  big.weight_bytes = (5ull << 30) / 2;
  EXPECT_EQ(r.gpu.compute_time(big), 12 * ms);
  const auto parts = r.gpu.allocation_parts(big);
  ASSERT_EQ(parts.size(), 3u);
  std::uint64_t bytes = 0, weights = 0;
  for (const auto& p : parts) bytes += p.dram_bytes, weights += p.weight_bytes;
  EXPECT_EQ(bytes, 3'000'000u);  // nothing lost to rounding
  EXPECT_EQ(weights, big.weight_bytes);
  std::vector<Tick> host;
  r.sim.spawn(enqueue_all(r.sim, r.gpu, {big}, host), "host");
  r.sim.run();
  EXPECT_EQ(host, std::vector<Tick>{45 * us});  // three submits
  EXPECT_EQ(span_of(r.trace, "w part 1/3"), std::make_pair(15 * us, 4 * ms + 15 * us));
  EXPECT_EQ(span_of(r.trace, "w part 3/3"), std::make_pair(8 * ms + 15 * us, 12 * ms + 15 * us));
  EXPECT_EQ(r.gpu.enqueued(), 3u);
  EXPECT_EQ(r.gpu.kernels(), 3u);
  EXPECT_DOUBLE_EQ(r.gpu.flops_done(), 3e9);
  // At the limit exactly: one kernel.
  big.weight_bytes = 1ull << 30;
  EXPECT_EQ(r.gpu.allocation_parts(big).size(), 1u);
  EXPECT_EQ(r.gpu.compute_time(big), 8 * ms);
}

// enqueue(k, compute_time(k)) runs as enqueue(k): the same spans and submissions, for a kernel
// in one buffer and one beyond max_allocation (whose parts take their own times).
TEST(AdrenoGpuQueue, EnqueueWithItsComputeTimeRunsAsEnqueue) {
  GpuKernel big = kernel("w", 3e9, 3'000'000);
  big.weight_bytes = (5ull << 30) / 2;
  const std::vector<GpuKernel> ks = {kernel("a", 1e9, 2'000'000), big, kernel("b", 3e9)};
  std::vector<Tick> plain_host, given_host;
  Rig plain, given;
  plain.sim.spawn(enqueue_all(plain.sim, plain.gpu, ks, plain_host), "host");
  plain.sim.run();
  const auto with_time = [&](std::vector<GpuKernel> list) -> Task<> {
    for (auto& k : list) {
      const Tick compute = given.gpu.compute_time(k);
      co_await given.gpu.enqueue(std::move(k), compute);
      given_host.push_back(given.sim.now());
    }
  };
  given.sim.spawn(with_time(ks), "host");
  given.sim.run();
  EXPECT_EQ(given_host, plain_host);
  ASSERT_EQ(given.trace.spans().size(), plain.trace.spans().size());
  for (std::size_t i = 0; i < plain.trace.spans().size(); ++i) {
    EXPECT_EQ(given.trace.spans()[i].name, plain.trace.spans()[i].name);
    EXPECT_EQ(given.trace.spans()[i].start, plain.trace.spans()[i].start);
    EXPECT_EQ(given.trace.spans()[i].end, plain.trace.spans()[i].end);
  }
  EXPECT_EQ(given.gpu.kernels(), 5u);  // a, three parts of w, b
}

// submit(k, compute) is enqueue(k, compute) without a frame: the same submissions, spans and
// event count, with a kernel waiting on the queue and one after a drain (restart); a kernel
// beyond max_allocation must go through enqueue.
TEST(AdrenoGpuQueue, SubmitRunsAsEnqueueWithItsComputeTime) {
  const std::vector<GpuKernel> ks = {kernel("a", 1e9, 2'000'000), kernel("b", 3e9), kernel("c", 1e8, 50'000'000)};
  std::vector<Tick> host[2];
  Rig rigs[2];
  for (int awaiter = 0; awaiter < 2; ++awaiter) {
    Rig& r = rigs[awaiter];
    const auto run = [&r, &ks, &out = host[awaiter], awaiter]() -> Task<> {
      for (std::size_t i = 0; i < ks.size(); ++i) {
        const Tick compute = r.gpu.compute_time(ks[i]);
        if (awaiter) {
          co_await r.gpu.submit(ks[i], compute);
        } else {
          co_await r.gpu.enqueue(ks[i], compute);
        }
        out.push_back(r.sim.now());
        if (i == 1) co_await r.gpu.finish();  // c then pays the restart
      }
    };
    r.sim.spawn(run(), "host");
    EXPECT_EQ(r.sim.run(), RunResult::kIdle);
  }
  EXPECT_EQ(host[1], host[0]);
  EXPECT_EQ(host[0].front(), 15 * us);
  for (const char* name : {"a", "b", "c"}) EXPECT_EQ(span_of(rigs[1].trace, name), span_of(rigs[0].trace, name)) << name;
  EXPECT_EQ(rigs[1].sim.events_fired(), rigs[0].sim.events_fired());
  EXPECT_EQ(rigs[1].gpu.kernels(), 3u);
  GpuKernel big = kernel("w", 3e9, 3'000'000);
  big.weight_bytes = (5ull << 30) / 2;
  EXPECT_THROW((void)rigs[1].gpu.submit(big, rigs[1].gpu.compute_time(big)), std::logic_error);
}

}  // namespace
}  // namespace socsim::hw
