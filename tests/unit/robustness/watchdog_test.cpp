// The watchdog (sim/core/simulator.h kNoProgress/kStalled, sim/runtime/watchdog_report.h): a
// livelock and a deadlock stop the run with a report naming the units' state, the executor's
// jobs, the waiting processes and the pending events.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "sim/core/sync.h"
#include "sim/hw/soc.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/executor.h"
#include "sim/runtime/watchdog_report.h"

namespace socsim::runtime {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Watchdog, LivelockStopsWithNoProgress) {
  Simulator sim;
  sim.set_no_progress_limit(1000);
  auto spin = [](Simulator& s) -> Task<> {
    co_await s.delay(5);  // time advances once, then never again
    for (;;) co_await s.delay(0);
  };
  sim.spawn(spin(sim), "spinner");
  EXPECT_EQ(sim.run(), RunResult::kNoProgress);
  EXPECT_EQ(sim.now(), 5u);
  EXPECT_LE(sim.events_fired(), 1003u);
  EXPECT_TRUE(contains(sim.describe_pending(5), "at 5 ps: resume of a coroutine inside a process") ||
              contains(sim.describe_pending(5), "resume of process 'spinner'"))
      << sim.describe_pending(5);
  EXPECT_EQ(sim.pending_events(), 1u);  // the next spin, still queued in place
}

TEST(Watchdog, BurstsBelowTheLimitAreNotLivelocks) {
  Simulator sim;
  sim.set_no_progress_limit(1000);
  auto burst = [](Simulator& s) -> Task<> {
    for (int i = 0; i < 900; ++i) co_await s.delay(0);
    co_await s.delay(1);
    for (int i = 0; i < 900; ++i) co_await s.delay(0);  // the count restarts when time moves
  };
  sim.spawn(burst(sim), "burst");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
}

TEST(Watchdog, DeadlockReportNamesUnitsJobsAndProcesses) {
  Simulator sim;
  hw::Soc soc(sim, hw::load_soc_spec(kRoot + "/soc_configs/snapdragon-8gen3.yaml", {}), nullptr);
  Trigger never(sim);
  auto stuck = [](Trigger& t) -> Task<> { co_await t.wait(); };
  sim.spawn(stuck(never), "waits-forever");
  const RunResult r = sim.run();
  EXPECT_EQ(r, RunResult::kStalled);
  try {
    check_run_finished(r, sim, soc, nullptr);
    FAIL() << "expected a WatchdogError";
  } catch (const WatchdogError& e) {
    const std::string m = e.what();
    EXPECT_TRUE(contains(m, "deadlock")) << m;
    EXPECT_TRUE(contains(m, "'waits-forever'")) << m;
    EXPECT_TRUE(contains(m, "npu: idle")) << m;
    EXPECT_TRUE(contains(m, "gpu: idle, 0 kernels enqueued")) << m;
    EXPECT_TRUE(contains(m, "pending events:\n  (none)")) << m;
  }
}

// The executor's part of the report, taken mid-run: one CPU job running, an NPU job waiting for it.
TEST(Watchdog, ExecutorStateListsRunningAndWaitingJobs) {
  Simulator sim;
  hw::Soc soc(sim, hw::load_soc_spec(kRoot + "/soc_configs/snapdragon-8gen3.yaml", {}), nullptr);
  model::ModelConfig m;
  m.id = "tiny";
  m.hidden = 64, m.intermediate = 128, m.layers = 1, m.heads = 4, m.kv_heads = 2, m.head_dim = 16, m.vocab = 100;
  Plan plan;
  for (auto unit : {kernels::Unit::kCpu, kernels::Unit::kNpu}) {
    Job j;
    j.unit = unit;
    j.name = unit == kernels::Unit::kCpu ? "producer" : "consumer";
    model::OpDesc op{"work", model::OpKind::kElementwise};
    op.elements = 1 << 22;
    j.ops.push_back({op, model::Phase::kPrefill, 0, 0});
    if (unit == kernels::Unit::kNpu) j.deps = {0};
    plan.add(std::move(j));
  }
  Executor ex(soc, m, {}, nullptr);
  EXPECT_EQ(ex.describe_state(4), "  (no plan started)\n");
  sim.spawn(ex.run(plan), "executor");
  EXPECT_EQ(sim.run(10 * kMicrosecond), RunResult::kTimeLimit);
  const std::string report = watchdog_report(RunResult::kTimeLimit, sim, soc, &ex);
  if (std::getenv("SOCSIM_SHOW_REPORT")) std::fputs(report.c_str(), stderr);
  EXPECT_TRUE(contains(report, "jobs: 0 of 2 done")) << report;
  EXPECT_TRUE(contains(report, "cpu jobs: running 'producer'")) << report;
  EXPECT_TRUE(contains(report, "waiting for dependencies 'consumer' (for 'producer' to finish)")) << report;
  EXPECT_TRUE(contains(report, "waiting processes:")) << report;
  EXPECT_EQ(sim.run(), RunResult::kIdle);  // the run goes on unharmed
}

}  // namespace
}  // namespace socsim::runtime
