// CPU tasks run alone are replayed from a recording (cpu_complex.h): the same end times and
// statistics as event by event, with fewer events; a task with anything beside it runs event by
// event.
#include <gtest/gtest.h>

#include <vector>

#include "sim/hw/cpu/cpu_complex.h"
#include "tests/unit/cpu/cpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::kGB;

CpuSpec waking_spec() {
  CpuSpec s = testing::small_cpu_spec();
  s.clusters.push_back({"little", 2, 500'000'000, 4, 8, 16, 2 * kGB});
  s.task_dispatch = 3 * kMicrosecond;
  s.idle_wakeup = 40 * kMicrosecond;
  s.idle_threshold = 200 * kMicrosecond;
  return s;
}

// No trace: a traced run never replays.
struct Bench {
  explicit Bench(bool replay) : dram(sim, 30 * kGB, {1.0, 0.9}), cpu_port(dram.add_port("cpu", 20 * kGB)), cpu(sim, waking_spec(), dram, cpu_port, nullptr) {
    cpu.set_replay_alone_runs(replay);
  }
  Simulator sim;
  DramModel dram;
  PortId cpu_port;
  CpuComplex cpu;
};

struct Step {
  CpuTask task;
  std::uint32_t threads;
  const char* cluster;  // nullptr: run_on_fastest
  Tick gap;             // idle time before it starts
};

std::vector<Step> steps() {
  CpuTask gemm{"gemm", 4e8, DType::kInt8, 20'000'000, 64};
  CpuTask stream{"stream", 1e6, DType::kFp32, 60'000'000, 0};
  stream.even_split = true;
  CpuTask small{"small", 2e5, DType::kFp32, 300'001, 0};
  std::vector<Step> s;
  // Each shape several times, warm (gaps under the threshold) and cold (over it); across the
  // clusters (7 threads: prime, mid, little) and on one.
  for (int round = 0; round < 3; ++round) {
    s.push_back({gemm, 7, nullptr, 10 * kMicrosecond});
    s.push_back({stream, 7, nullptr, 0});
    s.push_back({small, 3, "mid", 0});
    s.push_back({small, 3, "mid", 500 * kMicrosecond});  // cold
    s.push_back({gemm, 2, nullptr, 250 * kMicrosecond});
  }
  return s;
}

struct Outcome {
  std::vector<Tick> ends;
  Tick stalled = 0;
  std::uint64_t events = 0;
};

Task<> drive(Bench& b, const std::vector<Step>& s, Outcome& out) {
  for (const auto& st : s) {
    if (st.gap > 0) co_await b.sim.delay(st.gap);
    if (st.cluster) {
      co_await b.cpu.run(st.task, st.cluster, st.threads, &out.stalled);
    } else {
      co_await b.cpu.run_on_fastest(st.task, st.threads, &out.stalled);
    }
    out.ends.push_back(b.sim.now());
  }
}

Outcome run(Bench& b, const std::vector<Step>& s) {
  Outcome out;
  b.sim.spawn(drive(b, s, out), "drive");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  out.events = b.sim.events_fired();
  return out;
}

TEST(CpuAloneReplay, SameTimesAndStatisticsWithFewerEvents) {
  Bench slow(false), fast(true);
  const auto s = steps();
  const Outcome a = run(slow, s), b = run(fast, s);
  ASSERT_EQ(a.ends.size(), b.ends.size());
  for (std::size_t i = 0; i < a.ends.size(); ++i) EXPECT_EQ(a.ends[i], b.ends[i]) << "step " << i;
  EXPECT_EQ(a.stalled, b.stalled);
  EXPECT_LT(b.events, a.events);
  EXPECT_GT(fast.cpu.replays(), 0u);
  EXPECT_EQ(slow.cpu.replays(), 0u);
  for (const char* c : {"prime", "mid", "little"}) {
    EXPECT_EQ(a.ends.back(), b.ends.back());
    EXPECT_EQ(slow.cpu.core_busy(c), fast.cpu.core_busy(c)) << c;
    EXPECT_EQ(slow.cpu.wall_busy(c), fast.cpu.wall_busy(c)) << c;
    EXPECT_DOUBLE_EQ(slow.cpu.ops_done(c), fast.cpu.ops_done(c)) << c;
  }
  EXPECT_EQ(slow.cpu.core_stalled_by_cluster(), fast.cpu.core_stalled_by_cluster());
  EXPECT_EQ(slow.dram.total_bytes(), fast.dram.total_bytes());
  for (PortId p = 0; p < slow.dram.port_names().size(); ++p) {
    EXPECT_EQ(slow.dram.port_bytes(p), fast.dram.port_bytes(p)) << slow.dram.port_name(p);
    EXPECT_EQ(slow.dram.port_busy(p).busy(a.ends.back()), fast.dram.port_busy(p).busy(b.ends.back())) << slow.dram.port_name(p);
  }
  EXPECT_EQ(slow.dram.busy().busy(a.ends.back()), fast.dram.busy().busy(b.ends.back()));
  const double ia = slow.dram.bandwidth().integral(a.ends.back()), ib = fast.dram.bandwidth().integral(b.ends.back());
  EXPECT_NEAR(ia, ib, 1e-12 * ia);
  EXPECT_DOUBLE_EQ(slow.dram.bandwidth().max(), fast.dram.bandwidth().max());
}

// A DRAM flow of another master in flight forbids the replay; the task then shares DRAM with it
// as it would without replays.
TEST(CpuAloneReplay, AFlowBesideItForbidsTheReplay) {
  const auto s = steps();
  const auto with_gpu = [&s](bool replay) {
    Bench b(replay);
    const PortId gpu = b.dram.add_port("gpu", 20 * kGB);
    b.dram.start_flow(gpu, 400'000'000, nullptr, nullptr);  // streams through the first steps
    return run(b, s).ends;
  };
  EXPECT_EQ(with_gpu(false), with_gpu(true));
}

}  // namespace
}  // namespace socsim::hw
