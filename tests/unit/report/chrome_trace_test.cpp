// trace.json: a process per unit, a thread per track, counters under their unit, flows as s/f pairs.
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/report/trace.h"

namespace socsim::report {
namespace {

nlohmann::json events_of(const TraceRecorder& t) {
  std::ostringstream out;
  write_chrome_trace(t, out);
  return nlohmann::json::parse(out.str())["traceEvents"];
}

TEST(ChromeTrace, NonFiniteCountersAreNullAndNamesEscaped) {
  TraceRecorder t;
  t.counter("dram.bandwidth_gbps", 0, std::numeric_limits<double>::quiet_NaN());
  t.span("cpu.jobs", "a \"quoted\"\\name\n", 0, 10);
  const auto ev = events_of(t);  // parses: valid JSON
  bool counter = false, span = false;
  for (const auto& e : ev) {
    if (e["ph"] == "C") counter = e["args"]["value"].is_null();
    if (e["ph"] == "X") span = e["name"] == "a \"quoted\"\\name\n";
  }
  EXPECT_TRUE(counter);
  EXPECT_TRUE(span);
}

TEST(ChromeTrace, ProcessesPerUnitThreadsPerTrackAndFlows) {
  TraceRecorder t;
  t.span("npu.hmx", "matmul", 0, 2'000'000);
  t.span("cpu.mid0", "norm", 2'000'000, 3'000'000);
  t.span("npu.jobs", "L0", 0, 2'000'000);
  t.counter("dram.bandwidth_gbps", 0, 12.5);
  t.counter("gpu.queue_depth", 5, 1);
  t.flow("npu.jobs", 1'999'000, "cpu.mid0", 2'000'000, "npu->cpu");
  const auto ev = events_of(t);
  std::map<int, std::string> process;
  std::map<std::string, std::pair<int, int>> thread;  // name -> (pid, tid)
  for (const auto& e : ev) {
    if (e["name"] == "process_name") process[e["pid"]] = e["args"]["name"];
    if (e["name"] == "thread_name") thread[e["args"]["name"]] = {e["pid"], e["tid"]};
  }
  EXPECT_EQ(process, (std::map<int, std::string>{{1, "NPU"}, {2, "GPU"}, {3, "CPU"}, {4, "DRAM"}}));
  EXPECT_EQ(thread["npu.hmx"].first, 1);
  EXPECT_EQ(thread["npu.jobs"].first, 1);
  EXPECT_EQ(thread["cpu.mid0"].first, 3);
  int flows = 0;
  for (const auto& e : ev) {
    if (e["ph"] == "C" && e["name"] == "dram.bandwidth_gbps") {
      EXPECT_EQ(e["pid"], 4);
    }
    if (e["ph"] == "C" && e["name"] == "gpu.queue_depth") {
      EXPECT_EQ(e["pid"], 2);
    }
    if (e["ph"] == "s") {
      ++flows;
      EXPECT_EQ(e["tid"], thread["npu.jobs"].second);
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.999);
    }
    if (e["ph"] == "f") {
      ++flows;
      EXPECT_EQ(e["bp"], "e");
      EXPECT_EQ(e["tid"], thread["cpu.mid0"].second);
      EXPECT_EQ(e["id"], 1);
    }
  }
  EXPECT_EQ(flows, 2);
}

}  // namespace
}  // namespace socsim::report
