// A SoC's CPU clusters are the file's own names: the software stacks find their prime, mid and
// little cores by speed (hw::core_class). The 8 Gen 3 with its clusters renamed and listed in
// reverse order must time every system as the shipped file does (a probe found npu-naive's graph
// build on whatever cluster came first, 2.7x the energy; HeteroLLM's poll failing with "no CPU
// cluster named 'mid'"; llm.npu and cpu-only's optimized engine counting "little" by name).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "sim/systems/system.h"
#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

// The shipped file with prime/mid/little renamed (clusters and their power entries) and the
// clusters' order reversed.
std::filesystem::path renamed_soc(const std::filesystem::path& dir) {
  std::string text = read_file(std::filesystem::path(SOCSIM_SOURCE_DIR) / "soc_configs/snapdragon-8gen3.yaml");
  text = std::regex_replace(text, std::regex(R"(^(\s+)prime:)", std::regex::multiline), "$1fast:");
  text = std::regex_replace(text, std::regex(R"(^(\s+)mid:)", std::regex::multiline), "$1medium:");
  text = std::regex_replace(text, std::regex(R"(^(\s+)little:)", std::regex::multiline), "$1efficient:");
  // Reverse the cluster blocks under `clusters:` (each starts at a name indented by 4 spaces; the
  // section ends at the first line indented less).
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::size_t first = 0;
  while (first < lines.size() && lines[first] != "  clusters:") ++first;
  EXPECT_LT(first, lines.size()) << "the 8 Gen 3 file has no '  clusters:' line";
  std::vector<std::vector<std::string>> blocks;
  std::size_t i = first + 1;
  for (; i < lines.size() && lines[i].rfind("    ", 0) == 0; ++i) {
    if (lines[i][4] != ' ') blocks.emplace_back();
    if (!blocks.empty()) blocks.back().push_back(lines[i]);
  }
  EXPECT_EQ(blocks.size(), 3u);
  std::string out;
  for (std::size_t k = 0; k <= first && k < lines.size(); ++k) out += lines[k] + "\n";
  for (auto b = blocks.rbegin(); b != blocks.rend(); ++b) {
    for (const auto& l : *b) out += l + "\n";
  }
  for (; i < lines.size(); ++i) out += lines[i] + "\n";
  text = out;
  const auto soc = dir / "renamed.yaml";
  std::ofstream(soc) << text;
  return soc;
}

// The 8 Gen 3 with one CPU core: its prime cluster alone (and the power entries of the others
// dropped). npu-naive and tts-npu asked for 4 threads whatever the CPU had: an internal error.
std::filesystem::path one_core_soc(const std::filesystem::path& dir) {
  std::istringstream in(read_file(std::filesystem::path(SOCSIM_SOURCE_DIR) / "soc_configs/snapdragon-8gen3.yaml"));
  std::string out, block;
  bool in_clusters = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "  clusters:") {
      in_clusters = true;
    } else if (in_clusters && line.rfind("    ", 0) == 0) {
      if (line[4] != ' ') block = line.substr(4, line.find(':') - 4);
      if (block != "prime") continue;
    } else {
      in_clusters = false;
    }
    if (std::regex_search(line, std::regex(R"(^\s+(mid|little): \{active)"))) continue;
    out += line + "\n";
  }
  const auto soc = dir / "one_core.yaml";
  std::ofstream(soc) << out;
  return soc;
}

class CliClusterNames : public ::testing::TestWithParam<std::string> {};

TEST_P(CliClusterNames, RenamedAndReorderedClustersTimeEverySystemAlike) {
  const std::string id = GetParam();
  const auto dir = scratch_dir("cluster_names_" + id);
  const auto soc = renamed_soc(dir);
  const std::string rest = " --model qwen2-0.5b --system " + id + " --prompt 40 --decode 2";
  const auto shipped = run_socsim_json("run --soc snapdragon-8gen3" + rest, "cluster_names_shipped_" + id);
  const auto renamed = run_socsim_json("run --soc '" + soc.string() + "'" + rest, "cluster_names_renamed_" + id);
  for (const char* key : {"ttft_ms", "total_ms", "energy_j"}) {
    ASSERT_TRUE(shipped.contains(key) && renamed.contains(key)) << key;
    EXPECT_EQ(shipped[key].get<double>(), renamed[key].get<double>()) << id << ": " << key;
  }
  EXPECT_EQ(shipped["units"]["cpu"]["busy_ms"].get<double>(), renamed["units"]["cpu"]["busy_ms"].get<double>()) << id;
}

TEST_P(CliClusterNames, EverySystemRunsOnAOneCoreCpu) {
  const std::string id = GetParam();
  const auto dir = scratch_dir("one_core_" + id);
  const auto soc = one_core_soc(dir);
  const auto r = run_socsim("run --soc '" + soc.string() + "' --model qwen2-0.5b --system " + id + " --prompt 40 --decode 2");
  EXPECT_EQ(r.exit_code, 0) << id << ": " << r.err;
}

INSTANTIATE_TEST_SUITE_P(EverySystem, CliClusterNames, ::testing::ValuesIn(systems::SystemRegistry::builtin().ids()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) c = (c == '-') ? '_' : c;
                           return name;
                         });

// microbench's CPU kernels default to 4 threads; a smaller CPU gives them its cores (they exited 2
// blaming --op with "4 threads requested, the CPU has 1 cores"). More than it has is --threads's fault.
TEST(CliClusterNames, MicrobenchCpuKernelsRunOnAOneCoreCpu) {
  const auto dir = scratch_dir("one_core_microbench");
  const std::string soc = "microbench --soc '" + one_core_soc(dir).string() + "' --unit cpu ";
  for (const char* op : {"--op matmul --dtype int8 --m 64 --k 256 --n 256", "--op matmul --dtype w4a16 --m 1 --k 256 --n 256",
                         "--op softmax --m 4 --n 64", "--op attention --heads 2 --k 64 --q 4 --kv 64", "--op read --bytes 1048576"}) {
    const auto r = run_socsim(soc + op);
    EXPECT_EQ(r.exit_code, 0) << op << ": " << r.err;
  }
  // The report says how many ran (left out, the count depends on the SoC).
  EXPECT_EQ(run_socsim_json(soc + "--op read --bytes 1048576", "one_core_microbench_json")["threads"], 1);
  EXPECT_EQ(run_socsim_json("microbench --soc snapdragon-8gen3 --unit cpu --op read --bytes 1048576", "eight_core_microbench_json")["threads"], 4);
  const auto two = run_socsim(soc + "--op softmax --m 4 --n 64 --threads 2");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("--threads: 2 CPU threads, but the CPU has 1 cores"), std::string::npos) << two.err;
}

TEST(CliClusterNames, CpuOnlysOptimizedEngineLeavesOutTheSlowestClusterWhateverItsName) {
  const auto dir = scratch_dir("cluster_names_cpu_only_optimized");
  const auto soc = renamed_soc(dir);
  const std::string rest = " --model qwen2-0.5b --system cpu-only --prompt 40 --decode 2 --set cpu_only.engine=optimized";
  const auto shipped = run_socsim_json("run --soc snapdragon-8gen3" + rest, "cluster_names_opt_shipped");
  const auto renamed = run_socsim_json("run --soc '" + soc.string() + "'" + rest, "cluster_names_opt_renamed");
  EXPECT_EQ(shipped["total_ms"].get<double>(), renamed["total_ms"].get<double>());
}

}  // namespace
}  // namespace socsim::test
