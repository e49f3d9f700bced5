// A long decode run window by window (RunRequest::decode_window) times exactly as the whole plan
// run at once, for every system that plans decode windows, and a workload of several requests too.
#include <gtest/gtest.h>

#include "sim/model/model_config.h"
#include "sim/report/run_report.h"
#include "tests/support/configured_system.h"
#include "tests/support/sanitized.h"

namespace socsim {
namespace {

nlohmann::ordered_json run_with_window(const std::string& system, const std::string& soc, std::uint64_t window,
                                        const std::vector<runtime::Request>& workload = {}, const std::vector<std::string>& sets = {},
                                        Tick render_frame = 0) {
  test::ConfiguredSystem c(soc, sets);
  c.req.gpu_background_frame = render_frame;
  c.req.model = model::load_model_config(std::string(SOCSIM_SOURCE_DIR) + "/models/qwen2-0.5b.json");
  c.req.prompt_tokens = 64;
  // Windows of 5: 23 = 5 + 5 + 5 + 5 + 3; sanitized, 11 = 5 + 5 + 1 (the last one short too: 180 s
  // of the sanitized suite at 23).
  c.req.decode_tokens = test::kSanitized ? 11 : 23;
  c.req.batch = 1;
  c.req.workload = workload;
  c.req.decode_window = window;
  c.configure(system);
  EXPECT_TRUE(c.system->decode_windows()) << system;
  return report::to_json(c.run());
}

TEST(DecodeWindow, WindowsTimeExactlyAsTheWholePlan) {
  for (const char* system : {"cpu-only", "gpu-only", "npu-only", "npu-naive", "llm-npu", "tts-npu", "shadowattn", "hetero-layer", "hetero-tensor"}) {
    const std::string soc = std::string(system) == "shadowattn" ? "snapdragon-8gen2" : "snapdragon-8gen3";
    const auto whole = run_with_window(system, soc, 0);
    const auto windowed = run_with_window(system, soc, 5);
    EXPECT_EQ(whole.dump(), windowed.dump()) << system;
  }
}

TEST(DecodeWindow, StandardSyncAndARenderLoadToo) {
  // HeteroLLM's standard synchronization (per-submission costs) and a co-running GPU render load,
  // whose frames keep arriving across the windows' boundaries.
  const std::vector<std::string> standard{"heterollm.fast_sync=false"};
  EXPECT_EQ(run_with_window("hetero-tensor", "snapdragon-8gen3", 0, {}, standard).dump(),
            run_with_window("hetero-tensor", "snapdragon-8gen3", 5, {}, standard).dump());
  const Tick frame = 4 * kMillisecond;
  EXPECT_EQ(run_with_window("gpu-only", "snapdragon-8gen3", 0, {}, {}, frame).dump(),
            run_with_window("gpu-only", "snapdragon-8gen3", 5, {}, {}, frame).dump());
}

TEST(DecodeWindow, EveryRequestOfAWorkloadIsWindowed) {
  const std::vector<runtime::Request> w{{32, 12, 1}, {16, 3, 1}, {48, 7, 2}};
  EXPECT_EQ(run_with_window("cpu-only", "snapdragon-8gen3", 0, w).dump(), run_with_window("cpu-only", "snapdragon-8gen3", 4, w).dump());
}

}  // namespace
}  // namespace socsim
