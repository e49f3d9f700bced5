// The NPU's hardware threads end to end: tts-npu's W4A16 pipeline and llm.npu's static graphs keep
// HVX and HMX busy at the same time; what-ifs over scalar threads and HVX contexts run, and fewer
// threads are never faster.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/runtime/simulate_run.h"
#include "tests/support/configured_system.h"
#include "tests/support/sanitized.h"

namespace socsim::systems {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

struct NpuRun : test::ConfiguredSystem {
  NpuRun(const std::string& system, std::vector<std::string> sets, std::uint64_t prompt = 64, std::uint64_t decode = 2)
      : ConfiguredSystem("snapdragon-8gen3", std::move(sets)) {
    req.model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
    req.prompt_tokens = prompt, req.decode_tokens = decode, req.batch = 1;
    configure(system);
  }
  report::TraceRecorder trace;
  report::RunReport go() { return runtime::simulate_run(req, *system, trace); }
  // Time both tracks were busy (each track's spans merged first).
  Tick overlap(const std::string& a, const std::string& b) const {
    auto merged = [&](const std::string& track) {
      std::vector<std::pair<Tick, Tick>> v;
      for (const auto& s : trace.spans()) {
        if (s.track == track) v.emplace_back(s.start, s.end);
      }
      std::sort(v.begin(), v.end());
      std::vector<std::pair<Tick, Tick>> out;
      for (const auto& [lo, hi] : v) {
        if (!out.empty() && lo <= out.back().second) {
          out.back().second = std::max(out.back().second, hi);
        } else {
          out.emplace_back(lo, hi);
        }
      }
      return out;
    };
    const auto x = merged(a), y = merged(b);
    Tick both = 0;
    std::size_t i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
      const Tick lo = std::max(x[i].first, y[j].first), hi = std::min(x[i].second, y[j].second);
      if (hi > lo) both += hi - lo;
      (x[i].second < y[j].second) ? ++i : ++j;
    }
    return both;
  }
};

TEST(NpuThreads, TtsAndLlmNpuOverlapHvxWithHmx) {
  for (const std::string system : {"tts-npu", "llm-npu"}) {
    NpuRun r(system, {});
    r.go();
    EXPECT_GT(r.overlap("npu.hvx", "npu.hmx"), 0) << system;
  }
  // One scalar thread issues everything in turn: nothing overlaps.
  NpuRun one("tts-npu", {"npu.scalar_threads=1"});
  one.go();
  EXPECT_EQ(one.overlap("npu.hvx", "npu.hmx"), 0);
}

TEST(NpuThreads, SweepOverThreadsAndContextsRunsAndMoreIsNeverSlower) {
  for (const std::string system : {"tts-npu", "llm-npu", "npu-only"}) {
    double previous = 0;
    // Sanitized, threads 1, 3 and 5 (the same code at fewer counts; 71 s of the sanitized suite).
    for (int threads = 1; threads <= 6; threads += test::kSanitized ? 2 : 1) {
      NpuRun r(system, {"npu.scalar_threads=" + std::to_string(threads)}, 32, 1);
      const double ms = r.go().total_ms.value_or(0);
      EXPECT_GT(ms, 0) << system;
      if (previous > 0) {
        EXPECT_LE(ms, previous * (1 + 1e-9)) << system << " at " << threads << " threads";
      }
      previous = ms;
    }
    double with_two = 0, with_four = 0;
    for (int contexts : {2, 4}) {
      NpuRun r(system, {"npu.hvx.contexts=" + std::to_string(contexts)}, 32, 1);
      (contexts == 2 ? with_two : with_four) = r.go().total_ms.value_or(0);
    }
    EXPECT_LE(with_four, with_two) << system;
  }
}

}  // namespace
}  // namespace socsim::systems
