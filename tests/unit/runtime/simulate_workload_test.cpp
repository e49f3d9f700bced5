// A workload's requests run back to back on one SoC (simulate_run.h).
#include <gtest/gtest.h>

#include "sim/hw/soc_spec.h"
#include "sim/runtime/simulate_run.h"

namespace socsim::runtime {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

report::RunReport run(const std::string& system_id, std::uint64_t prompt, std::uint64_t decode, std::vector<Request> workload) {
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  RunRequest req;
  req.soc_id = "snapdragon-8gen3";
  req.soc = hw::parse_soc_spec(tree);
  req.model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
  req.system = system_id;
  req.prompt_tokens = prompt, req.decode_tokens = decode;
  req.workload = std::move(workload);
  req.workload_name = "test";
  auto system = systems::SystemRegistry::builtin().make(system_id);
  auto root = tree.root();
  system->configure(root, req.soc, req.model);
  report::TraceRecorder trace;
  return simulate_run(req, *system, trace);
}

TEST(SimulateWorkload, RequestsRunBackToBackWithTotalsAndSpread) {
  const auto r = run("cpu-only", 128, 4, {{128, 4, 1}, {512, 2, 1}, {64, 0, 1}});
  const auto& w = r.extra.at("workload");
  ASSERT_EQ(w["requests"], 3u);
  EXPECT_EQ(r.prompt_tokens, 128u + 512u + 64u);
  EXPECT_EQ(r.decode_tokens, 6u);
  const auto& q = w["per_request"];
  ASSERT_EQ(q.size(), 3u);
  EXPECT_DOUBLE_EQ(q[0]["start_ms"].get<double>(), 0.0);
  // Each starts after the previous one's last token.
  for (int i = 1; i < 3; ++i) {
    const double prev_end = q[i - 1]["start_ms"].get<double>() + q[i - 1]["ttft_ms"].get<double>() +
                            q[i - 1].value("decode_ms_per_token", 0.0) * q[i - 1]["decode"].get<double>();
    EXPECT_NEAR(q[i]["start_ms"].get<double>(), prev_end, 1e-6) << i;
  }
  EXPECT_GT(q[1]["ttft_ms"].get<double>(), q[0]["ttft_ms"].get<double>());  // longer prompt
  EXPECT_FALSE(q[2].contains("decode_ms_per_token"));                        // prefill only
  const double mean = (q[0]["ttft_ms"].get<double>() + q[1]["ttft_ms"].get<double>() + q[2]["ttft_ms"].get<double>()) / 3;
  EXPECT_NEAR(*r.ttft_ms, mean, 1e-9);
  EXPECT_DOUBLE_EQ(w["ttft_ms"]["max"].get<double>(), q[1]["ttft_ms"].get<double>());
}

TEST(SimulateWorkload, OneRequestWorkloadEqualsThePlainRun) {
  const auto plain = run("gpu-only", 200, 3, {});
  const auto one = run("gpu-only", 200, 3, {{200, 3, 1}});
  EXPECT_DOUBLE_EQ(*plain.ttft_ms, *one.ttft_ms);
  EXPECT_DOUBLE_EQ(*plain.decode_ms_per_token, *one.decode_ms_per_token);
  EXPECT_DOUBLE_EQ(*plain.energy_j, *one.energy_j);
}

TEST(SimulateWorkload, NpuGraphsBuiltOncePerShapeAcrossRequests) {
  // npu-naive builds a graph for each new prompt length at request time; a repeated length reuses it.
  const auto r = run("npu-naive", 128, 1, {{128, 1, 1}, {128, 1, 1}, {256, 1, 1}});
  const auto& q = r.extra.at("workload")["per_request"];
  EXPECT_LT(q[1]["ttft_ms"].get<double>(), 0.5 * q[0]["ttft_ms"].get<double>());  // no build the second time
  EXPECT_GT(q[2]["ttft_ms"].get<double>(), q[0]["ttft_ms"].get<double>());
}

}  // namespace
}  // namespace socsim::runtime
