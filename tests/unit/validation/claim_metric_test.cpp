// Dotted metric paths into a command's JSON, and the messages when they do not resolve.
#include <gtest/gtest.h>

#include "sim/validation/metric_path.h"

namespace socsim::validation {
namespace {

nlohmann::ordered_json report() {
  return nlohmann::ordered_json::parse(R"({"latency_ms": 0.9, "prompt_tokens": 8, "name": "x",
    "units": {"cpu": {"busy_ms": 2.5}, "dram": {"busy_ms": 1}},
    "layers": [{"ms": 1.5}, {"ms": 2.5}]})");
}

std::string error_of(const std::string& path) {
  try {
    lookup_metric(report(), path);
  } catch (const MetricError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no MetricError for " << path;
  return "";
}

TEST(ClaimMetric, TopLevelAndNested) {
  EXPECT_DOUBLE_EQ(lookup_metric(report(), "latency_ms"), 0.9);
  EXPECT_DOUBLE_EQ(lookup_metric(report(), "prompt_tokens"), 8);
  EXPECT_DOUBLE_EQ(lookup_metric(report(), "units.cpu.busy_ms"), 2.5);
  EXPECT_DOUBLE_EQ(lookup_metric(report(), "layers.1.ms"), 2.5);
}

TEST(ClaimMetric, MissingKeyListsWhatIsThere) {
  EXPECT_EQ(error_of("units.npu.busy_ms"), "metric 'units.npu.busy_ms': no 'npu' in 'units' (available: cpu, dram)");
  EXPECT_EQ(error_of("ttft_ms"),
            "metric 'ttft_ms': no 'ttft_ms' at the top level (available: latency_ms, prompt_tokens, name, units, layers)");
  EXPECT_EQ(error_of("units.cpu.energy_j"), "metric 'units.cpu.energy_j': no 'energy_j' in 'units.cpu' (available: busy_ms)");
}

TEST(ClaimMetric, PathThroughAScalarOrPastAList) {
  EXPECT_EQ(error_of("latency_ms.p50"), "metric 'latency_ms.p50': no 'p50' in 'latency_ms' (it holds the number 0.9)");
  EXPECT_EQ(error_of("layers.2.ms"), "metric 'layers.2.ms': no '2' in 'layers' (it holds a list of 2 entries)");
}

TEST(ClaimMetric, NonNumbers) {
  EXPECT_EQ(error_of("name"), "metric 'name' is not a number (got the string \"x\")");
  EXPECT_EQ(error_of("units.cpu"), "metric 'units.cpu' is not a number (got an object; available: busy_ms)");
  // A metric a run has no value for (read as "got the null null" before).
  nlohmann::ordered_json j = report();
  j["decode_ms_per_token"] = nullptr;
  try {
    lookup_metric(j, "decode_ms_per_token");
    ADD_FAILURE() << "no MetricError";
  } catch (const MetricError& e) {
    EXPECT_STREQ(e.what(), "metric 'decode_ms_per_token' is not a number (got null (no value))");
  }
}

}  // namespace
}  // namespace socsim::validation
