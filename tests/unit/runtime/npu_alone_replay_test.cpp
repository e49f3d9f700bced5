// NPU work that runs alone is replayed from a recording (sim/runtime/npu_alone_replay.h): the same
// end time and statistics as event by event, with fewer events; never when anything else could
// start before the work ends.
#include "sim/runtime/npu_alone_replay.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernels/gemm/gemm_lower_npu.h"
#include "sim/hw/npu/hexagon_npu.h"
#include "sim/model/model_config.h"
#include "sim/report/run_report.h"
#include "sim/report/trace.h"
#include "sim/runtime/simulate_run.h"
#include "sim/runtime/work_runner.h"
#include "tests/support/configured_system.h"
#include "tests/support/sanitized.h"
#include "tests/unit/npu/npu_test_spec.h"

namespace socsim::runtime {
namespace {

// TTS's W4A16 software pipeline: four stages over many (row block, column chunk) iterations.
kernels::NpuWork pipelined_work(const hw::NpuSpec& spec) {
  return kernels::lower_gemm_w4a16_npu({32, 128, 512}, kernels::BlockFormat::kQ4_0, spec, {kernels::DequantLayout::kCoalesced, true, {}});
}

struct Outcome {
  Tick end = 0;
  std::uint64_t events = 0, replays = 0, dma_bytes = 0, hmx_cycles = 0, dram_bytes = 0, npu_port_bytes = 0;
  Tick npu_busy = 0, hmx_busy = 0, hvx_busy = 0, dma_busy = 0, dram_busy = 0;
  double bandwidth_max = 0, bandwidth_integral = 0;
};

// `runs` runs of the work one after another (a gap of 1 us between them), and optionally a CPU
// stream of `other_bytes` starting `other_at` after the last run starts.
Outcome run_alone(const kernels::NpuWork& work, bool replay, int runs, std::uint64_t other_bytes = 0, Tick other_at = 0) {
  Simulator sim;
  hw::DramModel dram{sim, 60e9, {1.0, 0.9}};
  hw::HexagonNpu npu{sim, hw::test::small_npu(), dram, nullptr};
  const hw::PortId cpu = dram.add_port("cpu", 20e9);
  npu.set_replay_alone_runs(replay);
  auto runner = [](Simulator& s, hw::HexagonNpu& n, hw::DramModel& d, const kernels::NpuWork& w, int k, std::uint64_t bytes, Tick at,
                   hw::PortId port) -> Task<> {
    for (int i = 0; i < k; ++i) {
      if (i + 1 == k && bytes > 0) {
        auto other = [](Simulator& s2, hw::DramModel& d2, hw::PortId p, std::uint64_t b, Tick t) -> Task<> {
          co_await s2.delay(t);
          co_await d2.transfer(p, b);
        };
        s.spawn(other(s, d, port, bytes, at), "cpu stream");
      }
      co_await run_npu_work(n, w);
      co_await s.delay(kMicrosecond);
    }
  };
  sim.spawn(runner(sim, npu, dram, work, runs, other_bytes, other_at, cpu), "runs");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  Outcome o;
  o.end = sim.now();
  o.events = sim.events_fired();
  o.replays = npu.run_memo().replays();
  o.dma_bytes = npu.dma_bytes();
  o.hmx_cycles = npu.hmx_cycles();
  o.dram_bytes = dram.total_bytes();
  o.npu_port_bytes = dram.port_bytes(npu.port());
  o.npu_busy = npu.busy().busy(o.end);
  o.hmx_busy = npu.hmx_busy().busy(o.end);
  o.hvx_busy = npu.hvx_busy().busy(o.end);
  o.dma_busy = npu.dma_busy().busy(o.end);
  o.dram_busy = dram.busy().busy(o.end);
  o.bandwidth_max = dram.bandwidth().max();
  o.bandwidth_integral = dram.bandwidth().integral(o.end);
  sim.kill_processes();
  return o;
}

void expect_same(const Outcome& a, const Outcome& b) {
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.dma_bytes, b.dma_bytes);
  EXPECT_EQ(a.hmx_cycles, b.hmx_cycles);
  EXPECT_EQ(a.dram_bytes, b.dram_bytes);
  EXPECT_EQ(a.npu_port_bytes, b.npu_port_bytes);
  EXPECT_EQ(a.npu_busy, b.npu_busy);
  EXPECT_EQ(a.hmx_busy, b.hmx_busy);
  EXPECT_EQ(a.hvx_busy, b.hvx_busy);
  EXPECT_EQ(a.dma_busy, b.dma_busy);
  EXPECT_EQ(a.dram_busy, b.dram_busy);
  EXPECT_EQ(a.bandwidth_max, b.bandwidth_max);
  EXPECT_NEAR(a.bandwidth_integral, b.bandwidth_integral, 1e-12 * b.bandwidth_integral);
}

TEST(NpuAloneReplay, RepeatedAloneRunsReplayWithTheSameTimeAndStatistics) {
  const auto work = pipelined_work(hw::test::small_npu());
  ASSERT_TRUE(work.pipelined());
  const Outcome replayed = run_alone(work, true, 4);
  const Outcome simulated = run_alone(work, false, 4);
  // The first run is simulated (one-off work is never recorded), the second recorded and
  // replayed, the last two replayed.
  EXPECT_EQ(replayed.replays, 3u);
  EXPECT_EQ(simulated.replays, 0u);
  expect_same(replayed, simulated);
  EXPECT_LT(replayed.events * 2, simulated.events);
  EXPECT_GT(replayed.hmx_cycles, 0u);
}

TEST(NpuAloneReplay, AStreamStartingDuringTheRunForbidsTheReplay) {
  const auto work = pipelined_work(hw::test::small_npu());
  const Tick one = run_alone(work, false, 1).end;
  // A CPU stream starting halfway through the third run: a process with an event pending before
  // the run would end, so that run is simulated, sharing DRAM with the stream, as without replay.
  const Outcome replayed = run_alone(work, true, 3, 64 << 20, one / 2);
  const Outcome simulated = run_alone(work, false, 3, 64 << 20, one / 2);
  EXPECT_EQ(replayed.replays, 1u);  // the second run only
  expect_same(replayed, simulated);
  // The stream did slow the third run (else the test would prove nothing).
  EXPECT_GT(simulated.end, run_alone(work, false, 3).end);
}

TEST(NpuAloneReplay, SignatureSeesEveryTimedField) {
  const auto work = pipelined_work(hw::test::small_npu());
  const auto key = npu_work_signature(work);
  auto renamed = work;
  renamed.steps[0].name = "another label";
  EXPECT_EQ(npu_work_signature(renamed), key);  // names only label trace spans
  auto more_bytes = work;
  more_bytes.steps[0].bytes += 1;
  EXPECT_NE(npu_work_signature(more_bytes), key);
  auto other_iteration = work;
  other_iteration.steps.back().iteration += 1;
  EXPECT_NE(npu_work_signature(other_iteration), key);
  auto fewer_buffers = work;
  fewer_buffers.stages[0].buffers = 1;
  EXPECT_NE(npu_work_signature(fewer_buffers), key);
  auto packets = work;
  for (auto& s : packets.steps) {
    if (s.kind == kernels::NpuStep::Kind::kHvx) {
      s.packets = std::nextafter(s.packets, 1e300);
      break;
    }
  }
  EXPECT_NE(npu_work_signature(packets), key);
  // Every GemmShape field: a W4A16 graph's INT4 staging is another run than an FP16 plan's.
  for (const auto& field : {&hw::GemmShape::m, &hw::GemmShape::k, &hw::GemmShape::n, &hw::GemmShape::width}) {
    auto g = work;
    g.steps.push_back(kernels::NpuStep::hmx_gemm("g", {64, 64, 64, hw::DType::kFp16}, hw::OperandHome::kDram));
    auto h = g;
    h.steps.back().gemm.*field += 1;
    EXPECT_NE(npu_work_signature(h), npu_work_signature(g));
  }
  for (const auto& field : {&hw::GemmShape::out_bytes, &hw::GemmShape::weight_bits}) {
    auto g = work;
    g.steps.push_back(kernels::NpuStep::hmx_gemm("g", {64, 64, 64, hw::DType::kFp16}, hw::OperandHome::kDram));
    auto h = g;
    h.steps.back().gemm.*field = 4;
    EXPECT_NE(npu_work_signature(h), npu_work_signature(g));
  }
}

// Every number of a report, "events" aside, within `rel` of the other's.
void expect_reports_match(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b, const std::string& where) {
  ASSERT_EQ(a.type(), b.type()) << where;
  if (a.is_object()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (it.key() == "events" || it.key() == "events_saved_by_replays") continue;
      ASSERT_TRUE(b.contains(it.key())) << where << "." << it.key();
      expect_reports_match(it.value(), b.at(it.key()), where + "." + it.key());
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (std::size_t i = 0; i < a.size(); ++i) expect_reports_match(a[i], b[i], where + "[" + std::to_string(i) + "]");
  } else if (a.is_number_float()) {
    EXPECT_NEAR(a.get<double>(), b.get<double>(), 1e-12 * std::abs(b.get<double>())) << where;
  } else {
    EXPECT_EQ(a, b) << where;
  }
}

nlohmann::ordered_json run_system(const std::string& system, bool replay, std::uint64_t batch) {
  test::ConfiguredSystem c(system == "shadowattn" || system == "npu-full" ? "snapdragon-8gen2" : "snapdragon-8gen3", {});
  c.req.model = model::load_model_config(std::string(SOCSIM_SOURCE_DIR) + "/models/qwen2-0.5b.json");
  c.req.prompt_tokens = 64;
  c.req.decode_tokens = 12;
  c.req.batch = batch;
  c.req.replay_alone_runs = replay;
  c.configure(system);
  report::TraceRecorder off(report::TraceDetail::kOff);  // a trace would turn replays off
  return report::to_json(simulate_run(c.req, *c.system, off));
}

TEST(NpuAloneReplay, WholeRunsMatchTheEventByEventRun) {
  // Systems whose NPU runs alone (TTS's custom kernels, NPU-only's static graphs, replayed as
  // whole graphs) replay most of their NPU work; those that keep the NPU beside the CPU or GPU
  // (llm.npu, shadowAttn, HeteroLLM) replay less; all give the event-by-event run's report.
  // CPU tasks run alone are replayed too (cpu-only, cg-full's CPU attention and decode).
  for (const char* system : {"tts-npu", "npu-only", "npu-naive", "npu-full", "llm-npu", "shadowattn", "hetero-tensor", "cpu-only", "cg-full"}) {
    // Sanitized, batch 4 alone (its paths hold batch 1's; 105 s of the sanitized suite with both).
    for (std::uint64_t batch : {1u, 4u}) {
      if (test::kSanitized && batch == 1) continue;
      const auto replayed = run_system(system, true, batch);
      const auto simulated = run_system(system, false, batch);
      expect_reports_match(replayed, simulated, std::string(system) + " b" + std::to_string(batch));
      EXPECT_LE(replayed.at("events").get<std::uint64_t>(), simulated.at("events").get<std::uint64_t>()) << system;
      // Each replay fires one event where its recording fired the run's: the events it saved
      // plus those fired are exactly the event-by-event run's.
      EXPECT_EQ(simulated.at("events_saved_by_replays").get<std::uint64_t>(), 0u) << system;
      EXPECT_GT(replayed.at("events_saved_by_replays").get<std::uint64_t>(), 0u) << system << " b" << batch;
      EXPECT_EQ(replayed.at("events").get<std::uint64_t>() + replayed.at("events_saved_by_replays").get<std::uint64_t>(),
                simulated.at("events").get<std::uint64_t>())
          << system << " b" << batch;
      if (std::string(system) == "tts-npu" || std::string(system) == "npu-only") {
        EXPECT_LT(replayed.at("events").get<std::uint64_t>() * 3, simulated.at("events").get<std::uint64_t>()) << batch;
      }
    }
  }
}

}  // namespace
}  // namespace socsim::runtime
