// Every workload shipped in workloads/ loads, states its source, and draws within its bounds.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sim/runtime/workload/workload.h"
#include "tests/unit/workload/workload_test_helpers.h"

namespace socsim::runtime {
namespace {

std::vector<std::filesystem::path> shipped_workloads() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(testing::workloads_dir())) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  return files;
}

TEST(WorkloadFiles, EveryShippedFileLoadsAndDraws) {
  const auto files = shipped_workloads();
  ASSERT_FALSE(files.empty()) << "no workloads in " << testing::workloads_dir();
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    const Workload w = load_workload(file);
    EXPECT_EQ(w.name, file.stem().string()) << "name should match the id users pass to --workload";
    EXPECT_FALSE(w.source.empty()) << "shipped workloads say where their lengths come from";
    const auto requests = draw_requests(w);
    ASSERT_EQ(requests.size(), w.repeat);
    for (const auto& r : requests) {
      EXPECT_GE(r.prompt, w.prompt.min());
      EXPECT_LE(r.prompt, w.prompt.max());
      EXPECT_GE(r.decode, w.decode.min());
      EXPECT_LE(r.decode, w.decode.max());
      EXPECT_EQ(r.batch, w.batch);
    }
  }
}

TEST(WorkloadFiles, ThePapersTasksAreShipped) {
  std::set<std::string> ids;
  for (const auto& file : shipped_workloads()) ids.insert(file.stem().string());
  for (const char* id : {"default", "longbench-2wiki", "longbench-triviaqa", "droidtask",
                         "persona-chat", "arxiv-sum", "droidcall", "octopus", "math500-bestofn"}) {
    EXPECT_TRUE(ids.count(id)) << id;
  }
}

TEST(WorkloadFiles, DefaultIsOneShortRequest) {
  const auto requests = draw_requests(load_workload(testing::workloads_dir() / "default.yaml"));
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].prompt, 256u);
  EXPECT_EQ(requests[0].decode, 32u);
  EXPECT_EQ(requests[0].batch, 1u);
}

TEST(WorkloadFiles, PaperRangesAreKept) {
  // Spot checks against the papers' tables (llm.npu Table 5, shadowAttn end-to-end workload).
  const auto wiki = load_workload(testing::workloads_dir() / "longbench-2wiki.yaml");
  EXPECT_EQ(wiki.prompt.min(), 1451u);
  EXPECT_EQ(wiki.prompt.max(), 1672u);
  EXPECT_EQ(wiki.decode.min(), 2u);
  EXPECT_EQ(wiki.decode.max(), 4u);
  const auto arxiv = load_workload(testing::workloads_dir() / "arxiv-sum.yaml");
  EXPECT_EQ(arxiv.prompt.min(), 3840u);
  EXPECT_EQ(arxiv.decode.max(), 50u);
  const auto bon = load_workload(testing::workloads_dir() / "math500-bestofn.yaml");
  EXPECT_GT(bon.batch, 1u);  // Best-of-N decodes its N samples as one batch
}

}  // namespace
}  // namespace socsim::runtime
