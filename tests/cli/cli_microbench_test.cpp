#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

nlohmann::json microbench_json(const std::string& args, const std::string& name) {
  return run_socsim_json("microbench --soc snapdragon-8gen3 " + args, "mb_" + name);
}

TEST(CliMicrobench, MatmulOnEachUnitHasLatencyAndThroughput) {
  for (const char* unit : {"npu", "gpu", "cpu"}) {
    const auto j = microbench_json(std::string("--op matmul --unit ") + unit + " --dtype int8 --m 64 --k 2048 --n 2048", unit);
    EXPECT_GT(j["latency_ms"].get<double>(), 0.0) << unit;
    EXPECT_NEAR(j["latency_us"].get<double>(), 1000 * j["latency_ms"].get<double>(), 1e-6) << unit;
    EXPECT_GT(j["gflops"].get<double>(), 0.0) << unit;
    EXPECT_TRUE(j["units"].contains("dram")) << unit;
  }
}

TEST(CliMicrobench, NpuMatmulReportsItsTilePlan) {
  const auto j = microbench_json("--op matmul --unit npu --dtype fp16 --m 256 --k 4096 --n 14336", "plan");
  EXPECT_EQ(j["plan"]["strategy"], "activations-resident");
  EXPECT_EQ(j["plan"]["tiles_n"], 448);
}

TEST(CliMicrobench, EquivalentShapeBeatsTheTokenMajorLayout) {
  // llm.npu 4: a linear layer's [1024, 1, 2048] input against [32, 32, 2048]. The width-1 tensor
  // pads to 8 positions per row in 8-bit croutons (npu.layout): 8x the row tiles and more time.
  const std::string gemm = "--op matmul --unit npu --dtype int8 --m 1024 --k 2048 --n 2048 --layout ";
  const auto column = microbench_json(gemm + "1024x1", "layout_column");
  const auto square = microbench_json(gemm + "32x32", "layout_square");
  const auto best = microbench_json(gemm + "equivalent", "layout_best");
  EXPECT_EQ(column["plan"]["stored_rows"], 8192);
  EXPECT_EQ(square["plan"]["stored_rows"], 1024);
  EXPECT_EQ(column["plan"]["tiles_m"], 8 * square["plan"]["tiles_m"].get<int>());
  EXPECT_GT(column["latency_ms"].get<double>(), 1.5 * square["latency_ms"].get<double>());
  EXPECT_LE(best["latency_ms"].get<double>(), square["latency_ms"].get<double>());
  EXPECT_EQ(best["plan"]["stored_rows"], 1024);
  for (const char* bad : {"33x31", "32x", "x32", "0x1024", "32x32x1", "-1x-1024", "wide"}) {
    const auto r = run_socsim("microbench --soc snapdragon-8gen3 " + gemm + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--layout"), std::string::npos) << bad << ": " << r.err;
  }
  // Sizes that cannot be mapped exit 2 before any plan or search (the padded rows of 2^61 would wrap).
  for (const char* huge : {"--m 2305843009213693952 --layout 2305843009213693952x1", "--m 2305843009213693952 --layout equivalent",
                           "--m 18446744073709551615 --layout equivalent", "--m 1000000000000 --layout equivalent"}) {
    const auto r = run_socsim(std::string("microbench --soc snapdragon-8gen3 --op matmul --unit npu --dtype int8 --k 64 --n 64 ") + huge);
    EXPECT_EQ(r.exit_code, 2) << huge;
    EXPECT_NE(r.err.find("npu.session_limit"), std::string::npos) << huge << ": " << r.err;
  }
  // Only a matmul through the vendor graph has a layout.
  for (const char* bad : {"--op matmul --unit npu --dtype int8 --m 64 --k 64 --n 64 --operands tcm --layout 8x8",
                          "--op matmul --unit gpu --dtype fp16 --m 64 --k 64 --n 64 --layout 8x8",
                          "--op matmul --unit npu --dtype fp16 --engine hvx --operands tcm --m 64 --k 64 --n 64 --layout 8x8"}) {
    const auto r = run_socsim(std::string("microbench --soc snapdragon-8gen3 ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--layout"), std::string::npos) << bad << ": " << r.err;
  }
}

TEST(CliMicrobench, ReadAndCopyReportBandwidth) {
  EXPECT_GT(microbench_json("--op read --unit npu --engine dma --bytes 1048576", "dma")["gbps"].get<double>(), 1.0);
  EXPECT_GT(microbench_json("--op read --unit gpu+npu --bytes 1048576", "both")["gbps"].get<double>(), 1.0);
  EXPECT_GT(microbench_json("--op copy --unit gpu --bytes 4096", "copy")["latency_us"].get<double>(), 100.0);
}

TEST(CliMicrobench, DoubledTcmWhatIfIsFaster) {
  const std::string gemm = "--op matmul --unit npu --dtype fp16 --m 1024 --k 4096 --n 4096";
  const auto base = microbench_json(gemm, "tcm8");
  const auto dir = scratch_dir("mb_tcm16");
  const auto r = run_socsim("microbench --soc snapdragon-8gen3-tcm16 " + gemm + " --json '" + (dir / "m.json").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto big = nlohmann::json::parse(read_file(dir / "m.json"));
  // 8 MiB holds half the activations (4 MiB of the 8): two row blocks, each streaming every weight
  // tile; 16 MiB holds them all and streams the weights once.
  EXPECT_EQ(base["plan"]["strategy"], "row-blocked");
  EXPECT_EQ(big["plan"]["strategy"], "activations-resident");
  EXPECT_EQ(base["plan"]["weight_loads"].get<std::uint64_t>(), 2 * big["plan"]["weight_loads"].get<std::uint64_t>());
  EXPECT_LT(big["latency_ms"].get<double>(), 0.6 * base["latency_ms"].get<double>());
  // The same through --set on the base file.
  const auto set = microbench_json(gemm + " --set npu.tcm=16MiB", "tcm_set");
  EXPECT_DOUBLE_EQ(set["latency_ms"].get<double>(), big["latency_ms"].get<double>());
}

TEST(CliMicrobench, SoftmaxAndAttentionRunOnEachUnit) {
  for (const char* unit : {"cpu", "gpu", "npu"}) {
    const auto sm = microbench_json(std::string("--op softmax --unit ") + unit + " --m 64 --n 1024", std::string("sm_") + unit);
    EXPECT_GT(sm["latency_ms"].get<double>(), 0.0) << unit;
    EXPECT_EQ(sm["cols"], 1024) << unit;
    // Grouped K/V heads reach only FlashAttention on the NPU (the default NPU path here).
    const std::string gqa = std::string(unit) == "npu" ? " --kv-heads 2" : "";
    const auto at = microbench_json(std::string("--op attention --unit ") + unit + " --heads 12" + gqa + " --k 128 --q 64 --kv 512",
                                    std::string("at_") + unit);
    EXPECT_GT(at["latency_ms"].get<double>(), 0.0) << unit;
    EXPECT_EQ(at["kv_heads"], std::string(unit) == "npu" ? 2 : 12) << unit;
  }
  // The exp variant is a switch of the NPU softmax: each gives its own cost.
  const auto lut = microbench_json("--op softmax --unit npu --m 64 --n 1024 --exp lut", "lut");
  const auto poly = microbench_json("--op softmax --unit npu --m 64 --n 1024 --exp poly", "poly");
  EXPECT_NE(lut["latency_ms"].get<double>(), poly["latency_ms"].get<double>());
}

TEST(CliMicrobench, AttentionChecksItsShape) {
  auto r = run_socsim("microbench --soc snapdragon-8gen3 --op attention --unit cpu --heads 12 --kv-heads 5 --k 64 --q 8 --kv 8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--kv-heads"), std::string::npos) << r.err;
  r = run_socsim("microbench --soc snapdragon-8gen3 --op attention --unit cpu --heads 2 --k 64 --q 16 --kv 8");
  EXPECT_EQ(r.exit_code, 2);
  r = run_socsim("microbench --soc snapdragon-8gen3 --op softmax --unit npu --m 4 --n 64 --exp fast");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--exp"), std::string::npos) << r.err;
}

TEST(CliMicrobench, AnOptionTheBenchmarkDoesNotReadIsRefused) {
  // Each was silently ignored: the user would believe the number measured what they asked.
  const struct {
    const char* args;
    const char* option;
  } cases[] = {
      {"--op attention --unit cpu --heads 2 --k 64 --q 8 --kv 64 --dtype fp16", "--dtype"},
      {"--op attention --unit gpu --heads 2 --k 64 --q 8 --kv 64 --exp lut", "--exp"},
      {"--op attention --unit npu --heads 2 --k 64 --q 8 --kv 64 --m 8", "--m"},
      {"--op attention --unit cpu --heads 2 --k 64 --q 8 --kv 64 --bytes 4096", "--bytes"},
      {"--op softmax --unit cpu --m 4 --n 64 --exp lut", "--exp"},
      {"--op matmul --unit gpu --dtype fp16 --m 64 --k 64 --n 64 --threads 2", "--threads"},
      {"--op read --unit npu --engine dma --bytes 4096 --m 64", "--m"},
      {"--op qk --unit npu --dtype int8 --m 128 --k 64 --n 2048 --heads 2 --exp lut", "--exp"},
      // HMX and the DMA engine have no threads to choose (only HVX does).
      {"--op matmul --unit npu --dtype int8 --m 64 --k 256 --n 256 --threads 4", "--threads"},
      {"--op read --unit npu --engine dma --bytes 4096 --threads 4", "--threads"},
  };
  for (const auto& c : cases) {
    const auto r = run_socsim(std::string("microbench --soc snapdragon-8gen3 ") + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(std::string(c.option) + ": does not apply to --op"), std::string::npos) << c.args << "\n" << r.err;
  }
  // The options a benchmark does read still work (and the message lists them).
  const auto r = run_socsim("microbench --soc snapdragon-8gen3 --op softmax --unit cpu --m 4 --n 64 --k 3");
  EXPECT_NE(r.err.find("(it reads --m, --n, --threads)"), std::string::npos) << r.err;
  EXPECT_EQ(run_socsim("microbench --soc snapdragon-8gen3 --op softmax --unit cpu --m 4 --n 64 --threads 2").exit_code, 0);
  EXPECT_EQ(run_socsim("microbench --soc snapdragon-8gen3 --op attention --unit npu --dtype int8 --heads 2 --k 64 --q 8 --kv 64 --threads 2").exit_code, 0);
  EXPECT_EQ(run_socsim("microbench --soc snapdragon-8gen3 --op matmul --unit npu --engine hvx --operands tcm --dtype fp16 --m 64 --k 64 --n 64 --threads 2").exit_code, 0);
  EXPECT_EQ(run_socsim("microbench --soc snapdragon-8gen3 --op read --unit npu --engine hvx --bytes 4096 --threads 2").exit_code, 0);
  const auto dma = run_socsim("microbench --soc snapdragon-8gen3 --op read --unit npu --engine dma --bytes 4096 --threads 2");
  EXPECT_NE(dma.err.find("does not apply to --op read --unit npu --engine dma"), std::string::npos) << dma.err;
}

// shadowAttn's QxK graph (--op qk) has client buffers by default: each launch synchronizes them,
// npu.graph.client_io_call plus its bytes at client_io_bandwidth (8 Gen 3: 1.25 ms, 2.5 GB/s; 8
// Gen 2: x1.44, 1.8 ms and 1.74 GB/s): 128 x 64 INT8 Q + 2048 x 64 INT8 K + 128 x 2048 INT32
// scores = 1,187,840 B per head; in FP16 (Q, K and scores) 802,816 B. So does npu-full's INT8
// attention graph: 2 heads of 8 queries over 64 keys, INT8 Q, K, V in and FP16 O out = 19,456 B.
TEST(CliMicrobench, QkGraphsOfClientBuffersPayTheirSynchronization) {
  const auto sync_ms = [](const std::string& soc, const std::string& args, const std::string& name) {
    const auto client = run_socsim_json("microbench --soc " + soc + " " + args, "mb_" + name + "_client");
    const auto shared = run_socsim_json("microbench --soc " + soc + " " + args + " --graph-io shared", "mb_" + name + "_shared");
    EXPECT_EQ(client["graph_io"], "client") << args;
    EXPECT_EQ(shared["graph_io"], "shared") << args;
    return client["latency_ms"].get<double>() - shared["latency_ms"].get<double>();
  };
  for (const int heads : {1, 4}) {
    const std::string qk = "--op qk --unit npu --dtype int8 --m 128 --k 64 --n 2048 --heads " + std::to_string(heads);
    EXPECT_NEAR(sync_ms("snapdragon-8gen3", qk, "qk"), 1.25 + heads * 1187840 / 2.5e9 * 1e3, 1e-6) << heads;
    EXPECT_NEAR(sync_ms("snapdragon-8gen2", qk, "qk"), 1.8 + heads * 1187840 / 1.74e9 * 1e3, 1e-6) << heads;
  }
  EXPECT_NEAR(sync_ms("snapdragon-8gen3", "--op qk --unit npu --dtype fp16 --m 128 --k 64 --n 2048", "qk16"), 1.25 + 802816 / 2.5e9 * 1e3, 1e-6);
  EXPECT_NEAR(sync_ms("snapdragon-8gen3", "--op attention --unit npu --dtype int8 --heads 2 --k 64 --q 8 --kv 64", "att8"),
              1.25 + 19456 / 2.5e9 * 1e3, 1e-6);
  const auto flash = run_socsim("microbench --soc snapdragon-8gen3 --op attention --unit npu --dtype fp16 --heads 2 --k 64 --q 8 --kv 64 --graph-io shared");
  EXPECT_EQ(flash.exit_code, 2);
  EXPECT_NE(flash.err.find("--graph-io: applies to the INT8 attention graph"), std::string::npos) << flash.err;
  auto r = run_socsim("microbench --soc snapdragon-8gen3 --op qk --unit npu --dtype int8 --m 128 --k 64 --n 2048 --graph-io mapped");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--graph-io: expected client or shared, got 'mapped'"), std::string::npos) << r.err;
  r = run_socsim("microbench --soc snapdragon-8gen3 --op matmul --unit npu --dtype int8 --m 64 --k 64 --n 64 --graph-io shared");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--graph-io: does not apply to --op"), std::string::npos) << r.err;
}

TEST(CliMicrobench, BadInputExits2) {
  auto r = run_socsim("microbench --soc snapdragon-8gen3 --op matmul --unit npu --m 64 --k 64 --n 64");
  EXPECT_EQ(r.exit_code, 2);  // no --dtype
  EXPECT_NE(r.err.find("--dtype"), std::string::npos);
  r = run_socsim("microbench --soc snapdragon-8gen3 --op conv --unit npu");
  EXPECT_EQ(r.exit_code, 2);
  r = run_socsim("microbench --soc snapdragon-8gen3 --op matmul --unit npu --dtype fp16 --m 4096 --k 4096 --n 4096 --operands tcm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("do not fit the TCM"), std::string::npos) << r.err;
  // The HVX matmul on operands in TCM too (it timed 24 GiB of operands "in" 8 MiB of TCM), and
  // an explicit --threads 0 (it ran as 1 without a word); found by a hostile-input audit.
  r = run_socsim("microbench --soc snapdragon-8gen3 --op matmul --unit npu --engine hvx --dtype fp16 --m 65536 --k 65536 --n 65536 --operands tcm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--operands: the 65536x65536x65536 FP16 matmul's operands take 25769803776 B, more than the 8388608 B of TCM"),
            std::string::npos) << r.err;
  r = run_socsim("microbench --soc snapdragon-8gen3 --op attention --unit npu --heads 0 --k 64 --q 8 --kv 64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--heads: attention needs at least one query head"), std::string::npos) << r.err;  // it blamed --kv-heads
  r = run_socsim("microbench --soc snapdragon-8gen3 --op matmul --unit npu --engine hvx --dtype fp16 --m 64 --k 64 --n 64 --operands tcm --threads 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--threads: must be at least 1"), std::string::npos) << r.err;
}

TEST(CliMicrobench, AddressSpaceLimitIsReported) {
  auto r = run_socsim("microbench --soc snapdragon-8gen3 --op graph-build --model llama-3-8b --prompt 256");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("address space"), std::string::npos) << r.err;
  r = run_socsim("microbench --soc snapdragon-8gen2 --op graph-build --model qwen2.5-3b --prompt 256");
  EXPECT_EQ(r.exit_code, 2);  // V73's 2 GiB keeps 3B models off the NPU (TTS 3.1.2)
  const auto j = microbench_json("--op graph-build --model qwen2.5-1.5b --prompt 256", "graph");
  EXPECT_EQ(j["sessions"], 1);
  EXPECT_GT(j["optimize_ms"].get<double>(), j["build_ms"].get<double>());
}

}  // namespace
}  // namespace socsim::test
