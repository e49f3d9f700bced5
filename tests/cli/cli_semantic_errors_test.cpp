// Validation of meaning, not just syntax (issue: robustness): values that parse but describe
// impossible hardware or runs. Each must exit 2, name the key and what was expected, and write
// nothing (neither --json nor --report-dir).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

struct BadRun {
  const char* args;      // after `run --prompt 64 --decode 2` (the SoC is snapdragon-8gen3 unless given)
  const char* key;       // the key the message must name
  const char* expected;  // part of what the message says was expected
};

TEST(CliSemanticErrors, ImpossibleHardwareAndRunsExit2NamingTheKeyAndWriteNothing) {
  const BadRun cases[] = {
      {"--model qwen2-0.5b --system npu-only --set npu.clock=0GHz", "npu.clock", "> 0"},
      {"--model qwen2-0.5b --system npu-only --set npu.hmx.tile_rows=31", "npu.hmx.tile_rows", "whole number of 128-byte HVX vectors"},
      {"--model qwen2-0.5b --system npu-only --set npu.tcm=2KiB", "npu.tcm", "cannot hold two FP16 tiles"},
      {"--model qwen2-0.5b --system gpu-only --set gpu.copy_bandwidth=0GB/s", "gpu.copy_bandwidth", "> 0"},
      {"--model llama-3-8b --system gpu-only --set dram.capacity=4GiB", "dram.capacity", "more than the device's 4.00 GiB"},
      {"--model qwen2-1.5b --system npu-naive --set npu.address_space=512MiB --set npu.session_limit=256MiB",
       "npu.address_space", "exceed the NPU's address space"},
      {"--model qwen2-0.5b --system npu-only --set npu.frequency=1GHz", "npu.frequency", "expected one of: impl, clock"},
      {"--soc jetson-orin-nx --model qwen2-0.5b --system llm-npu", "npu", "this SoC has none"},
      {"--soc jetson-tx2 --model qwen2-0.5b --system hetero-tensor", "npu", "this SoC has none"},
      // (tts-npu read an NPU address space of 0 B instead.)
      {"--soc jetson-orin-nx --model qwen2-0.5b --system tts-npu", "npu", "system 'tts-npu' runs on the NPU and this SoC has none"},
      // Positive but so small that a transfer or a cycle overflows the 64-bit picosecond clock
      // (was "internal error: dram: flow duration overflows 64-bit picoseconds", exit 1).
      {"--model qwen2-0.5b --system npu-only --set 'dram.peak=1e-300 B/s'", "dram.peak", "at least 1 MB/s"},
      {"--model qwen2-0.5b --system hetero-tensor --set 'npu.dma.bandwidth=1e-200 B/s'", "npu.dma.bandwidth", "at least 1 MB/s"},
      {"--model qwen2-0.5b --system npu-only --set 'npu.clock=1e-300 Hz'", "npu.clock", "at least 1 MHz"},
      {"--model qwen2-0.5b --system npu-only --set 'npu.clock=1e30 Hz'", "npu.clock", "at most 1000 GHz"},
      {"--model qwen2-0.5b --system cpu-only --set power.cpu_core.mid.stalled=2W", "power.cpu_core.mid.stalled",
       "active (power.cpu_core.mid.active, 1 W) power"},
      // Lowering active under the file's stalled names both keys and blames the one changed.
      {"--model qwen2-0.5b --system cpu-only --set power.cpu_core.mid.active=0.3W", "power.cpu_core.mid.active",
       "active (power.cpu_core.mid.active, 0.3 W)"},
      // The same for an address space set below the file's session limit (it blamed the file's
      // session_limit line, which the user never touched).
      {"--model qwen2-0.5b --system npu-only --set 'npu.address_space=0.5 GiB'", "--set: npu.address_space",
       "must fit the NPU's address space (npu.address_space, 536870912 B)"},
      // A KV cache the user sized past the NPU's address space blamed --model.
      {"--model llama-3.2-3b --system tts-npu --set tts.kv_context=131072", "--set: tts.kv_context",
       "tokens needs 16970153984 B in the NPU's address space"},
      // npu-only's options under another NPU system said "unknown key; expected one of: impl, clock, ...".
      {"--model qwen2-0.5b --system npu-naive --set npu.shape_policy=pipe", "npu.shape_policy",
       "it is an option of --system npu-only, not --system npu-naive"},
      {"--model qwen2-0.5b --system llm-npu --set 'npu.standard_lengths=[64]'", "npu.standard_lengths",
       "it is an option of --system npu-only, not --system llm-npu"},
      // Found by a hostile campaign: more outlier channels than the model's hidden size ran, and
      // each extra channel made the prefill slower.
      {"--model qwen2-0.5b --system llm-npu --set llm_npu.outlier_channels=4096", "llm_npu.outlier_channels", "must be in [0, 896]"},
      // A graph length past the window planned for a minute, silently, before the memory check.
      {"--model qwen2-0.5b --system hetero-tensor --set 'heterollm.standard_lengths=[64, 1e9]'", "heterollm.standard_lengths",
       "longer than the model's window of 131072 tokens"},
      // The same for npu-only's graphs (a hostile-input audit: 10^8 lowered a prompt padded to
      // 10^8 rows, 20 GB in a minute; 9.3e18 overflowed into an internal error).
      {"--model qwen2-0.5b --system npu-only --set 'npu.standard_lengths=[100000000]'", "npu.standard_lengths",
       "longer than the model's window of 131072 tokens"},
      {"--model qwen2-0.5b --system npu-only --set 'npu.standard_lengths=[64, 9.3e18]'", "npu.standard_lengths",
       "lengths must be positive integers"},
      // Options of a mechanism the chosen system does not have were accepted and ignored.
      {"--model qwen2-0.5b --system npu-only --set npu.shape_policy=online-prepare --set 'npu.standard_lengths=[64]'",
       "npu.standard_lengths", "applies to npu.shape_policy padding or pipe, not online-prepare"},
      {"--model qwen2-0.5b --system cg-full --set shadowattn.sparsity=0.3", "shadowattn.sparsity",
       "does not apply to cg-full (dense attention keeps every position)"},
      {"--model qwen2-0.5b --system npu-full --set shadowattn.sparsity=0.3", "shadowattn.sparsity", "does not apply to npu-full"},
      {"--model qwen2-0.5b --system cg-sparse --set shadowattn.buckets=9", "shadowattn.buckets",
       "applies to --system shadowattn only, not cg-sparse"},
      {"--model qwen2-0.5b --system cg-block-sparse --set shadowattn.pipeline=false", "shadowattn.pipeline",
       "applies to --system shadowattn only, not cg-block-sparse"},
      {"--model qwen2-0.5b --system cg-full --set shadowattn.graph_io=shared", "shadowattn.graph_io",
       "applies to NPU attention graphs (shadowattn, npu-full); cg-full has none"},
      {"--model qwen2-0.5b --system shadowattn --set shadowattn.graph_io=rpcmem", "shadowattn.graph_io", "client"},
      {"--model qwen2-0.5b --system shadowattn --set npu.graph.client_io_bandwidth=0GB/s", "npu.graph.client_io_bandwidth", "must be > 0"},
      {"--model qwen2-0.5b --system llm-npu --set llm_npu.shadow_outliers=false --set llm_npu.outlier_prune=0.5", "llm_npu.outlier_prune",
       "applies to the shadow outlier path (shadow_outliers: true)"},
      {"--model qwen2-0.5b --system npu-only --set tts.prefetch=false", "tts", "its options belong to --system tts-npu, not --system npu-only"},
      {"--model qwen2-0.5b --system cpu-only --set workload.fps=30", "workload.fps", "applies with workload.gpu_background"},
  };
  const auto dir = scratch_dir("semantic_errors");
  for (const auto& c : cases) {
    const auto json = dir / "r.json", rep = dir / "rep";
    const std::string args = c.args;
    const std::string soc = args.find("--soc ") == std::string::npos ? "--soc snapdragon-8gen3 " : "";
    const auto r = run_socsim("run --prompt 64 --decode 2 " + soc + args + " --json '" +
                              json.string() + "' --report-dir '" + rep.string() + "'");
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.key), std::string::npos) << c.args << ": message does not name " << c.key << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.args << ": message does not say '" << c.expected << "'\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(json)) << c.args;
    EXPECT_FALSE(std::filesystem::exists(rep)) << c.args;
  }
}

// Boost parses "-1" into an unsigned option as 2^32 - 1 (`bench --repeat -1` ran four billion
// times; `microbench --bytes -1` overflowed the clock, exit 1): every unsigned option refuses a
// sign, text after the digits and values beyond its type, naming the option (exit 2).
TEST(CliSemanticErrors, NegativeOrMalformedCountsExit2NamingTheOption) {
  const std::pair<const char*, const char*> cases[] = {
      {"bench --repeat -1", "--repeat"},
      {"microbench --soc snapdragon-8gen3 --op read --unit npu --engine dma --bytes -1", "--bytes"},
      {"microbench --soc snapdragon-8gen3 --op read --unit npu --engine dma --bytes 12abc", "--bytes"},
      {"microbench --soc snapdragon-8gen3 --op read --unit npu --engine dma --bytes 99999999999999999999999", "--bytes"},
      {"microbench --soc snapdragon-8gen3 --op matmul --unit npu --m -64 --k 64 --n 64", "--m"},
      {"microbench --soc snapdragon-8gen3 --op read --unit npu --engine dma --bytes ' -1'", "--bytes"},
      {"microbench --soc snapdragon-8gen3 --op read --unit npu --engine dma --bytes $'\\n-1'", "--bytes"},
  };
  for (const auto& [args, option] : cases) {
    const auto r = run_socsim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(std::string("for option '") + option + "' is invalid"), std::string::npos) << args << "\n" << r.err;
  }
}

// A model family socsim does not build (a state-space model) was simulated as Llama, exit 0.
TEST(CliSemanticErrors, AnUnknownModelFamilyExits2NamingModelType) {
  const auto dir = scratch_dir("unknown_family");
  const auto p = dir / "ssm.json";
  std::ofstream(p) << R"({"model_type": "mamba", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "vocab_size": 100})";
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model '" + p.string() + "' --system cpu-only --prompt 8 --decode 1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("model_type: 'mamba' is not a family socsim models (known: llama"), std::string::npos) << r.err;
}

// A run that would take the host's memory stops with exit 2 naming --max-host-memory and writes
// nothing (decode 10000 of qwen2-0.5b on cpu-only held 11 GB; 100000 was killed by the OOM killer).
// Timing mode now runs long decodes in windows (bounded memory); functional mode runs the measured
// request whole, so it is estimated up front.
TEST(CliSemanticErrors, ARunPastTheHostMemoryLimitStopsWithExit2) {
  const auto dir = scratch_dir("host_memory");
  const auto json = dir / "r.json";
  // Refused before it starts (before any numerics): the plan of one decode step, times the decode.
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --mode functional --prompt 8 "
                            "--decode 20000 --max-host-memory 100MiB --json '" + json.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--max-host-memory: this run would hold about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(20000 decode tokens x about"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(json));
  // Estimated to fit but past the limit as it grows (here from the start): stopped as it runs.
  const auto grown = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 100 "
                                "--max-host-memory 1MiB --json '" + json.string() + "'");
  EXPECT_EQ(grown.exit_code, 2) << grown.err;
  EXPECT_NE(grown.err.find("--max-host-memory: the simulation holds"), std::string::npos) << grown.err;
  EXPECT_NE(grown.err.find("more than the limit of 1 MiB"), std::string::npos) << grown.err;
  EXPECT_FALSE(std::filesystem::exists(json));
  const auto bad = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1 --max-host-memory '12 parsecs'");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--max-host-memory: expected a size"), std::string::npos) << bad.err;
  const auto small = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1 --max-host-memory 1KiB");
  EXPECT_EQ(small.exit_code, 2) << small.err;
  EXPECT_NE(small.err.find("--max-host-memory: must be at least 1 MiB"), std::string::npos) << small.err;
}

// Found by a hostile-input audit: a functional batch's activations (held within one layer, where
// the per-layer check does not look) and a microbench attention's lowering took 10-15 GB before
// the limit stopped them, if it did. Now a batch whose activations alone pass the limit is refused
// before any numerics, one that fits that bound is stopped before a large tensor would pass it, and
// microbench takes --max-host-memory too.
TEST(CliSemanticErrors, FunctionalBatchesAndMicrobenchShapesPastTheHostMemoryLimitExit2) {
  const auto dir = scratch_dir("host_memory_batch");
  const auto json = dir / "r.json";
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system npu-only --mode functional --prompt 64 --decode 2 "
                            "--batch 512 --max-host-memory 1GiB --json '" + json.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--max-host-memory: functional mode would hold at least 1716 MiB of activations for 512 sequence(s) of 66 tokens"),
            std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(json));
  // Under the bound (429 MiB), over the limit once a layer's tensors are made.
  const auto grown = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --mode functional --prompt 64 --decode 2 "
                                "--batch 128 --functional-layers 1 --max-host-memory 600MiB --json '" + json.string() + "'");
  EXPECT_EQ(grown.exit_code, 2) << grown.err;
  EXPECT_NE(grown.err.find("--max-host-memory: the simulation "), std::string::npos) << grown.err;
  EXPECT_NE(grown.err.find("use a smaller --batch"), std::string::npos) << grown.err;
  EXPECT_FALSE(std::filesystem::exists(json));
  // (30.5 GiB of operands: the device's limits lifted, so the host's bound is what refuses it.)
  const auto lowering = run_socsim("microbench --soc snapdragon-8gen3 --op attention --unit npu --heads 32 --k 128 --q 1000000 "
                                   "--kv 1000000 --set npu.address_space=64GiB --set npu.session_limit=64GiB --set dram.capacity=64GiB "
                                   "--max-host-memory 256MiB --json '" + json.string() + "'");
  EXPECT_EQ(lowering.exit_code, 2) << lowering.err;
  // Refused before the kernel's steps are made (they are counted first: 46 GiB here).
  EXPECT_NE(lowering.err.find("--max-host-memory: the simulation would hold"), std::string::npos) << lowering.err;
  EXPECT_NE(lowering.err.find("MiB it allocates"), std::string::npos) << lowering.err;
  EXPECT_NE(lowering.err.find("while lowering the kernel"), std::string::npos) << lowering.err;
  EXPECT_FALSE(std::filesystem::exists(json));
}

// A duration past 64-bit picoseconds is the inputs' doing: exit 2 with what overflowed (the
// dedicated socsim::TimeOverflow; any other overflow would be an internal error, exit 1).
TEST(CliSemanticErrors, ADurationPast64BitPicosecondsIsBadInput) {
  // (A device of 17 EB, so the read is not refused for the memory it needs first.)
  const auto r = run_socsim("microbench --soc snapdragon-8gen3 --op read --unit cpu --bytes 18000000000000000000 --set 'dram.peak=1MB/s' "
                            "--set dram.capacity=17000000000GiB");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // Named by the option that makes it long (it said only "the inputs").
  EXPECT_NE(r.err.find("--bytes: 18000000000000000000 bytes take longer on this path than socsim can represent"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dram: flow duration overflows 64-bit picoseconds"), std::string::npos) << r.err;
}

// A service of weeks of work is refused with its size (hostile-input audit: a year of calls over
// 1024 contexts started, its first estimate due after an hour); functional mode counts 20x.
TEST(CliSemanticErrors, MarkovDecayOutsideTheMarkovPatternExits2) {
  const auto r = run_socsim("serve --soc snapdragon-8gen3 --model qwen2-0.5b --policy llms --contexts 2 --hours 1 --memory-budget 160MiB "
                            "--set llms.max_context=1024 --set llms.markov_decay=0.3");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("llms.markov_decay: applies to --pattern markov, not random"), std::string::npos) << r.err;
  EXPECT_EQ(run_socsim("serve --soc snapdragon-8gen3 --model qwen2-0.5b --policy llms --contexts 2 --hours 1 --memory-budget 160MiB "
                       "--set llms.max_context=1024 --set llms.markov_decay=0.3 --pattern markov").exit_code, 0);
}

TEST(CliSemanticErrors, ServeOfMoreThanADayOfWorkExits2NamingTheContexts) {
  auto r = run_socsim("serve --soc snapdragon-8gen3 --model llama-2-7b --policy llms --contexts 1024 --hours 8760 --rate 1/4s");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--contexts: with --hours 8760 and --rate 1/4s this serves about 7884000 calls 1024 times"), std::string::npos) << r.err;
  r = run_socsim("serve --soc snapdragon-8gen3 --model llama-2-7b --policy llms --contexts 64 --hours 720 --rate 1/4s --mode functional");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("functional mode's density decoder would attend over"), std::string::npos) << r.err;
  // Functional mode over 1024 contexts for an hour at 1/s: 3.7e6 call simulations over 4096-token
  // windows, about 13 hours (counted as 20 timing calls each it was started: 17 hours of work).
  r = run_socsim("serve --soc jetson-orin-nx --model llama-2-7b --policy llms --contexts 1024 --hours 1 --rate 1/1s --mode functional");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("in 3.74e+06 call simulations (once per context count"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("up to 4096 tokens): about 13.5 h of work"), std::string::npos) << r.err;
  // Timing mode: under the call-count cap, but each call's reclaim scans every chunk the contexts
  // hold (a year over 1024 contexts started and said 144 h left); swap re-ranks nothing.
  r = run_socsim("serve --soc snapdragon-8gen3 --model qwen2-0.5b --policy swap --contexts 1024 --hours 8760");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--contexts: this serves 1.08e+08 call simulations (once per context count: the max-active-contexts search), each "
                       "scanning the chunks all contexts hold (windows up to 131072 tokens in chunks of 16;"),
            std::string::npos)
      << r.err;
  // A call's cost grows with its context's window: at qwen2-0.5b's 131072 tokens one context at
  // 1/s for 220 h was let through (counted as 250 timing calls per call) and reported 37 h left.
  r = run_socsim("serve --soc snapdragon-8gen3 --model qwen2-0.5b --policy llms --contexts 1 --hours 220 --rate 1/s --mode functional");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--contexts: functional mode's density decoder would attend over 1.04e+11 window tokens"), std::string::npos) << r.err;
  // A replayed trace had no check at all (200,000 calls of 2000 tokens: 28 h left after a minute).
  const auto dir = scratch_dir("semantic_functional_trace");
  {
    std::ofstream t(dir / "t.txt");
    for (int i = 0; i < 200000; ++i) t << i << " 0 2000\n";
  }
  r = run_socsim("serve --soc snapdragon-8gen3 --model qwen2-0.5b --policy llms --contexts 1 --mode functional --trace " + (dir / "t.txt").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--trace: functional mode's density decoder would attend over 2.62e+10 window tokens and run 4e+08 new tokens in 2e+05 "
                       "call simulations (each call's scored rows attend over its context's window, up to 131072 tokens)"),
            std::string::npos)
      << r.err;
}

// A service trace is held in memory: a rate x duration beyond what it may hold is bad input, not
// an allocation failure (1000 calls/s over 72 h was std::bad_alloc, exit 1).
TEST(CliSemanticErrors, ServeTraceTooLongExits2NamingTheRate) {
  const auto r = run_socsim("serve --soc snapdragon-8gen3 --model llama-2-7b --policy llms --contexts 4 --rate 1000/1s");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--rate: with --hours 72"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("more than the 10000000 a trace may hold"), std::string::npos) << r.err;
}

// Found by a hostile campaign (each used to end otherwise, noted per case).
TEST(CliSemanticErrors, FunctionalModeChecksMemoryAndTinyModels) {
  const auto dir = scratch_dir("semantic_functional");
  const auto model_with = [&](const std::string& name, const std::string& edits) {
    auto j = nlohmann::json::parse(read_file(std::filesystem::path(SOCSIM_SOURCE_DIR) / "models" / "qwen2-0.5b.json"));
    j.update(nlohmann::json::parse(edits));
    std::ofstream(dir / name) << j.dump();
    return (dir / name).string();
  };
  // A model narrower than the 4 default outlier channels (internal error, exit 1): its every channel.
  auto r = run_socsim("run --soc snapdragon-8gen3 --model " + model_with("h2.json", R"({"hidden_size": 2, "num_attention_heads": 1, "num_key_value_heads": 1})") +
                      " --system cpu-only --prompt 8 --decode 2 --mode functional");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Weights larger than the device, as timing mode refuses them (std::bad_alloc, exit 1).
  r = run_socsim("run --soc snapdragon-8gen3 --model " + model_with("huge.json", R"({"intermediate_size": 1000000})") +
                 " --system cpu-only --prompt 8 --decode 2 --mode functional");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("more than the device's 16.00 GiB of memory (dram.capacity)"), std::string::npos) << r.err;
  // --max-host-memory holds for the numerics too (they ran on, 405 MB against a 100 MiB limit).
  r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-1.5b --system cpu-only --prompt 8 --decode 2 --mode functional --max-host-memory 100MiB");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--max-host-memory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("while computing the functional forward pass"), std::string::npos) << r.err;
}

// Empty output paths wrote nothing without a word; --quick --systems printed an empty table; a
// sweep case's setting that is also a grid axis was silently replaced by the grid's values.
TEST(CliSemanticErrors, EmptyPathsExclusiveFlagsAndCasesShadowedByTheGrid) {
  const std::string run = "run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1";
  auto r = run_socsim(run + " --json ''");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--json: expected a file path"), std::string::npos) << r.err;
  r = run_socsim(run + " --report-dir ''");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--report-dir: expected a folder path"), std::string::npos) << r.err;
  r = run_socsim("bench --quick --systems");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--systems"), std::string::npos) << r.err;
  const auto dir = scratch_dir("semantic_sweep_shadow");
  std::ofstream(dir / "s.yaml") << "name: s\n"
                                   "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: cpu-only, decode: 1}\n"
                                   "grid:\n"
                                   "  dram.peak: [10GB/s, 20GB/s]\n"
                                   "runs:\n"
                                   "  - {prompt: 16}\n"
                                   "  - {prompt: 16, dram.peak: 5GB/s}\n";
  r = run_socsim("sweep --spec '" + (dir / "s.yaml").string() + "' --out '" + (dir / "o").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("s.yaml:7: runs.dram.peak: is also a grid axis (line 4)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o" / "results.json"));
}

TEST(CliSemanticErrors, AFolderGivenAsTheImportanceFileIsCalledAFolder) {
  const auto dir = scratch_dir("importance_folder");
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system shadowattn --prompt 64 --decode 1 --set shadowattn.importance_file='" +
                            dir.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("shadowattn.importance_file: cannot read the file: it is a folder, not an importance file"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not valid JSON"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace socsim::test
