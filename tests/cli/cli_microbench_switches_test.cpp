// `socsim microbench`: --dtype w4a16, --engine hmx|hvx and kernel switches through --set.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

nlohmann::json bench(const std::string& args, const std::string& name) {
  return run_socsim_json("microbench --soc snapdragon-8gen3 " + args, "mbs_" + name);
}

double latency(const nlohmann::json& j) { return j["latency_ms"].get<double>(); }

TEST(CliMicrobenchSwitches, W4A16MatmulOnEachUnit) {
  const std::string shape = " --dtype w4a16 --m 128 --k 4096 --n 4096";
  const auto npu = bench("--op matmul --unit npu" + shape, "npu");
  EXPECT_EQ(npu["plan"]["kernel"], "w4a16");
  EXPECT_EQ(npu["plan"]["format"], "q4_0");
  EXPECT_EQ(npu["plan"]["weight_bytes"], 4096 / 32 * 18 * 4096);  // 4.5 bits per weight
  for (const char* unit : {"gpu", "cpu"}) EXPECT_GT(latency(bench(std::string("--op matmul --unit ") + unit + shape, unit)), 0.0) << unit;
}

TEST(CliMicrobenchSwitches, W4A16SwitchesChangeTheKernel) {
  const std::string gemm = "--op matmul --unit npu --dtype w4a16 --m 128 --k 4096 --n 4096";
  const auto tiled = bench(gemm, "tiled");
  const auto ggml = bench(gemm + " --set kernel.w4a16.layout=ggml", "ggml");
  EXPECT_EQ(ggml["plan"]["layout"], "baseline");  // the older name of conventional groups
  EXPECT_GT(latency(ggml), latency(tiled));  // scattering groups into the tile layout costs HVX work
  // TTS's GEMM ablation: none < coalesced (the default) < hmx-layout < baseline.
  const auto none = bench(gemm + " --set kernel.w4a16.layout=none", "none");
  const auto hmx = bench(gemm + " --set kernel.w4a16.layout=hmx-layout", "hmxl");
  EXPECT_EQ(tiled["plan"]["layout"], "coalesced");
  EXPECT_LT(latency(none), latency(tiled));
  EXPECT_LT(latency(tiled), latency(hmx));
  EXPECT_LT(latency(hmx), latency(ggml));
  const auto q8 = bench(gemm + " --set kernel.w4a16.format=q8_0", "q8");
  EXPECT_EQ(q8["plan"]["weight_bytes"], 4096 / 32 * 34 * 4096);
}

TEST(CliMicrobenchSwitches, AttentionEngines) {
  const std::string shape = "--op attention --unit npu --heads 12 --kv-heads 2 --k 128 --q 256 --kv 1024 --operands tcm";
  const auto hmx = bench(shape, "hmx");
  const auto hvx = bench("--op attention --unit npu --heads 12 --k 128 --q 256 --kv 1024 --operands tcm --engine hvx", "hvx");
  EXPECT_EQ(hmx["engine"], "hmx");
  EXPECT_EQ(hvx["engine"], "hvx");
  EXPECT_GT(latency(hvx), 3 * latency(hmx));  // the matrix unit is what makes NPU attention fast
  const auto int8 = bench("--op attention --unit npu --dtype int8 --heads 12 --k 128 --q 256 --kv 1024", "int8");
  EXPECT_GT(latency(int8), 0.0);
  const auto tile32 = bench(shape + " --set kernel.flash.kv_tile=32", "kv32");
  EXPECT_NE(latency(tile32), latency(hmx));
}

TEST(CliMicrobenchSwitches, BadSwitchesAndEnginesExit2) {
  const std::string base = "microbench --soc snapdragon-8gen3 ";
  auto r = run_socsim(base + "--op softmax --unit npu --m 4 --n 64 --engine hmx");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--engine"), std::string::npos) << r.err;
  r = run_socsim(base + "--op matmul --unit cpu --dtype int8 --m 4 --k 64 --n 64 --engine hvx");
  EXPECT_EQ(r.exit_code, 2);
  r = run_socsim(base + "--op attention --unit npu --heads 2 --k 64 --q 8 --kv 8 --set kernel.flash.kv_tile=48");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("32 or 64"), std::string::npos) << r.err;
  r = run_socsim(base + "--op matmul --unit npu --dtype w4a16 --m 4 --k 64 --n 64 --set kernel.w4a16.layuot=ggml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'layout'"), std::string::npos) << r.err;
  r = run_socsim(base + "--op matmul --unit npu --dtype w4a16 --m 4 --k 64 --n 64 --engine hvx");
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace socsim::test
