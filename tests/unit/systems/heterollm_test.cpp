// HeteroLLM (hetero-layer, hetero-tensor): splits that cover a matmul exactly (bit-identical to
// the unsplit W4A16 GEMM), fast synchronization that never reorders a dependency and costs less
// than the standard path, and the system-level claims (prefill, misaligned prompts, decode
// bandwidth). The solver and the profilers have their own files.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "kernels/gemm/gemm_w4a16.h"
#include "sim/functional/functional_run.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/heterollm/heterollm_system.h"
#include "sim/systems/heterollm/partition_jobs.h"
#include "sim/systems/heterollm/partition_solver.h"
#include "tests/unit/functional/functional_test_helpers.h"
#include "tests/unit/kernels/gemm/kernel_test_util.h"
#include "tests/unit/systems/heterollm_test_util.h"

namespace socsim::systems {
namespace {

using heterollm::CutKind;
using namespace heterollm_test;

const std::string kRoot = SOCSIM_SOURCE_DIR;

// The parts of a partition of a sibling group (two matmuls sharing their input), computed with
// the W4A16 kernel on their own rows and columns and assembled, equal the unsplit matmuls bit for
// bit, every output element written exactly once.
TEST(HeteroPartition, SplitsCoverTheMatmulExactly) {
  const std::int64_t m = 100, k = 64;
  const std::vector<std::int64_t> ns = {512, 256};
  const kernels::Tensor a = kernels::test::random_f16(m, k, 5);
  std::vector<kernels::Tensor> wt, full;
  for (std::size_t o = 0; o < ns.size(); ++o) {
    wt.push_back(kernels::test::random_f32(ns[o], k, 10 + static_cast<std::uint32_t>(o)));
    full.push_back(kernels::gemm_w4a16(a, kernels::quantize_blocks(wt[o], kernels::BlockFormat::kQ4_0), 1));
  }
  std::vector<model::GraphOp> group;
  for (std::size_t o = 0; o < ns.size(); ++o) {
    model::OpDesc op{o == 0 ? "gate_proj" : "up_proj", model::OpKind::kMatMul};
    op.m = m, op.k = k, op.n = static_cast<std::uint64_t>(ns[o]), op.weight_params = op.k * op.n;
    group.push_back({op, model::Phase::kPrefill, 0, 0});
  }
  SolverParams p = params();
  p.standard = {32, 64};
  std::size_t checked = 0;
  for (const auto& c : heterollm::candidates(m, k, 768, p)) {
    SCOPED_TRACE(c.describe());
    std::vector<kernels::Tensor> out;
    std::vector<std::vector<int>> written;
    for (std::size_t o = 0; o < ns.size(); ++o) {
      out.push_back(kernels::Tensor::matrix(m, ns[o], kernels::ElemType::kF16));
      written.emplace_back(static_cast<std::size_t>(m * ns[o]), 0);
    }
    // Per op: the NPU's columns are its first ones, the GPU's the rest (row cuts).
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> col_base;
    auto run_part = [&](const model::GraphOp& g, std::int64_t row0, std::int64_t rows, bool gpu) {
      const std::size_t o = g.op.name.rfind("gate_proj", 0) == 0 ? 0 : 1;
      const auto cols = static_cast<std::int64_t>(g.op.n);
      const std::int64_t col0 = gpu ? ns[o] - cols : 0;
      // The part's operands: rows [row0, row0 + rows) of A (fewer if padded past m), the weight
      // rows of its output columns.
      const std::int64_t real = std::min(rows, m - row0);
      kernels::Tensor as = kernels::Tensor::matrix(real, k, kernels::ElemType::kF16);
      std::memcpy(as.raw().data(), a.raw().data() + row0 * k * 2, static_cast<std::size_t>(real * k * 2));
      kernels::Tensor ws = kernels::Tensor::matrix(cols, k, kernels::ElemType::kF32);
      std::memcpy(ws.raw().data(), wt[o].raw().data() + col0 * k * 4, static_cast<std::size_t>(cols * k * 4));
      const kernels::Tensor c = kernels::gemm_w4a16(as, kernels::quantize_blocks(ws, kernels::BlockFormat::kQ4_0), 1);
      for (std::int64_t r = 0; r < real; ++r) {
        std::memcpy(out[o].raw().data() + ((row0 + r) * ns[o] + col0) * 2, c.raw().data() + r * cols * 2,
                    static_cast<std::size_t>(cols * 2));
        for (std::int64_t x = 0; x < cols; ++x) ++written[o][static_cast<std::size_t>((row0 + r) * ns[o] + col0 + x)];
      }
    };
    std::int64_t npu_row = 0;
    for (const auto& job : heterollm::partition_jobs(c, group)) {
      const bool gpu = job.unit == kernels::Unit::kGpu;
      std::int64_t rows = 0;
      for (const auto& g : job.ops) {
        rows = static_cast<std::int64_t>(g.op.m);
        const std::int64_t row0 = gpu ? static_cast<std::int64_t>(c.gpu_row_begin) : npu_row;
        // NPU pieces beyond the op's NPU rows are padding, computed and thrown away.
        const std::int64_t keep = gpu ? rows : std::min<std::int64_t>(rows, static_cast<std::int64_t>(c.npu_rows) - npu_row);
        if (keep > 0) run_part(g, row0, keep, gpu);
      }
      if (!gpu) npu_row += rows;
    }
    for (std::size_t o = 0; o < ns.size(); ++o) {
      for (int w : written[o]) ASSERT_EQ(w, 1);
      ASSERT_EQ(std::memcmp(out[o].raw().data(), full[o].raw().data(), full[o].bytes()), 0);
    }
    ++checked;
  }
  EXPECT_GT(checked, 4u);
}

// --- the systems end to end ---

struct HeteroRun {
  config::ConfigTree tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  runtime::RunRequest req;
  std::unique_ptr<System> system;
  HeteroRun(const std::string& id, const std::string& model, std::uint64_t prompt, std::uint64_t decode,
            std::vector<std::string> sets = {}) {
    for (const auto& s : sets) tree.apply_override(s);
    req.soc_id = "snapdragon-8gen3";
    req.soc = hw::parse_soc_spec(tree);
    req.model = model.empty() ? functional::test::tiny_model() : model::load_model_config(kRoot + "/models/" + model + ".json");
    req.system = id;
    req.prompt_tokens = prompt, req.decode_tokens = decode;
    system = SystemRegistry::builtin().make(id);
    auto root = tree.root();
    system->configure(root, req.soc, req.model);
    tree.check_all_consumed();
  }
  report::RunReport run() {
    report::TraceRecorder trace;
    return runtime::simulate_run(req, *system, trace);
  }
};

TEST(HeteroSystems, TensorLevelPrefillBeatsGpuOnlyAndNpuPaddingAtAMisalignedLength) {
  const double tensor = *HeteroRun("hetero-tensor", "qwen2-0.5b", 300, 0).run().ttft_ms;
  const double layer = *HeteroRun("hetero-layer", "qwen2-0.5b", 300, 0).run().ttft_ms;
  EXPECT_LT(tensor, *HeteroRun("gpu-only", "qwen2-0.5b", 300, 0).run().ttft_ms);
  EXPECT_LT(tensor, *HeteroRun("npu-only", "qwen2-0.5b", 300, 0, {"npu.shape_policy=padding"}).run().ttft_ms);
  EXPECT_LE(tensor, layer);
  // The solver costs an unsplit NPU op as the plan runs it (inside the home graph), so splitting
  // never loses to hetero-layer.
  for (std::uint64_t prompt : {135u, 525u}) {
    EXPECT_LE(*HeteroRun("hetero-tensor", "qwen2-0.5b", prompt, 0).run().ttft_ms,
              *HeteroRun("hetero-layer", "qwen2-0.5b", prompt, 0).run().ttft_ms)
        << prompt;
  }
}

TEST(HeteroSystems, FastSyncBeatsTheStandardPath) {
  // Decode: a qwen2-0.5b prefill of 256 runs on the NPU alone (its head's GEMV too), so only
  // decode hands over between the GPU and NPU.
  for (const char* id : {"hetero-layer", "hetero-tensor"}) {
    const double fast = *HeteroRun(id, "qwen2-0.5b", 256, 4).run().total_ms;
    const double standard = *HeteroRun(id, "qwen2-0.5b", 256, 4, {"heterollm.fast_sync=false"}).run().total_ms;
    EXPECT_LT(fast, standard) << id;
  }
}

// The ablation swaps the synchronization only (HeteroLLM 5.4): the same partitions, and in the
// standard path every GPU kernel waits for a queue flush of at least gpu.sync_fixed.
TEST(HeteroSystems, StandardSyncKeepsThePlanAndFlushesEveryGpuKernel) {
  const auto fast = HeteroRun("hetero-tensor", "qwen2-0.5b", 64, 2).run();
  HeteroRun standard_run("hetero-tensor", "qwen2-0.5b", 64, 2, {"heterollm.fast_sync=false"});
  const auto standard = standard_run.run();
  EXPECT_EQ(fast.extra.at("system_info").at("decisions"), standard.extra.at("system_info").at("decisions"));
  EXPECT_EQ(fast.extra.at("system_info").at("matmul_partitions"), standard.extra.at("system_info").at("matmul_partitions"));
  // Count the GPU ops of one decode step: each op's kernel that runs shorter than sync_fixed (all
  // but a few in a 0.5B model) adds the rest of it as waiting, plus the queue restart.
  std::uint64_t gpu_kernels = 0;
  const auto plan = standard_run.system->plan(standard_run.req.soc, standard_run.req.model,
                                              {standard_run.req.prompt_tokens, standard_run.req.decode_tokens, 1});
  for (const auto& j : plan.jobs) {
    if (j.unit != kernels::Unit::kGpu) continue;
    for (const auto& g : j.ops) gpu_kernels += g.phase == model::Phase::kDecode && g.step == 0 ? 1 : 0;
  }
  ASSERT_GT(gpu_kernels, 0u);
  const double sync_ms = to_ms(standard_run.req.soc.gpu.sync_fixed);
  EXPECT_GE(*standard.decode_ms_per_token - *fast.decode_ms_per_token, 0.5 * static_cast<double>(gpu_kernels) * sync_ms)
      << gpu_kernels << " GPU ops per decode step";
}

TEST(HeteroSystems, TensorLevelDecodeUsesMoreDramBandwidthThanGpuOnly) {
  const auto tensor = HeteroRun("hetero-tensor", "qwen2-0.5b", 64, 2).run();
  const auto gpu = HeteroRun("gpu-only", "qwen2-0.5b", 64, 2).run();
  const double t = tensor.extra.at("decode_dram_gbps").get<double>(), g = gpu.extra.at("decode_dram_gbps").get<double>();
  EXPECT_GT(t, g);
  EXPECT_GT(*tensor.decode_tokens_per_s, *gpu.decode_tokens_per_s);
  EXPECT_TRUE(tensor.extra.at("system_info").contains("decisions"));
}

TEST(HeteroSystems, FunctionalModeComputesTheSplitPlan) {
  HeteroRun s("hetero-tensor", "", 40, 2, {"heterollm.standard_lengths=[32]", "heterollm.row_align=32", "heterollm.force_split=true"});
  // The plan does split matmuls (else this test proves nothing).
  std::uint64_t split = 0;
  const auto info = s.run().extra.at("system_info");
  for (const auto& [kind, count] : info.at("matmul_partitions").items()) {
    if (kind.find("only") == std::string::npos) split += count.get<std::uint64_t>();
  }
  EXPECT_GT(split, 0u);
  s.req.mode = runtime::Mode::kFunctional;
  s.req.seed = 3;
  const auto acc = functional::run_functional(s.req, *s.system, {});
  // Every split decoder matmul is computed as its parts, each with its own unit's kernel and
  // precision (the head is computed whole, at its first part's precision).
  std::uint64_t gpu_parts = 0;
  for (const auto& job : s.system->plan(s.req.soc, s.req.model, {40, 2, 1}).jobs) {
    for (const auto& g : job.ops) gpu_parts += g.op.name.ends_with(".gpu_part") && g.op.name.rfind("lm_head", 0) != 0 ? 1 : 0;
  }
  EXPECT_GT(gpu_parts, 0u);
  EXPECT_EQ(acc.value("split_matmuls", std::uint64_t{0}), gpu_parts);
  HeteroRun g("gpu-only", "", 40, 2);
  g.req.mode = runtime::Mode::kFunctional;
  g.req.seed = 3;
  const auto ref = functional::run_functional(g.req, *g.system, {});
  // The same W4A16 weights; only attention's exp (NPU LUT vs GPU exact) differs.
  EXPECT_LT(acc["logits_rel_error"].get<double>(), 1.5 * ref["logits_rel_error"].get<double>());
}

TEST(HeteroSystems, GpuRenderLoadSlowsGpuOnlyAndMissesFramesMoreThanHetero) {
  auto with_render = [](const std::string& id) {
    HeteroRun s(id, "qwen2-1.5b", 256, 0);
    s.req.gpu_background_frame = 6 * kMillisecond;
    return s.run();
  };
  const auto gpu = with_render("gpu-only"), layer = with_render("hetero-layer");
  EXPECT_GT(*gpu.ttft_ms, *HeteroRun("gpu-only", "qwen2-1.5b", 256, 0).run().ttft_ms);
  const auto missed = [](const report::RunReport& r) { return r.extra.at("gpu_background").at("missed").get<std::uint64_t>(); };
  EXPECT_GT(layer.extra.at("gpu_background").at("frames").get<std::uint64_t>(), 0u);
  EXPECT_GT(missed(gpu), missed(layer));
  EXPECT_FALSE(HeteroRun("gpu-only", "qwen2-1.5b", 64, 0).run().extra.contains("gpu_background"));
}

TEST(HeteroSystems, PredictionModeProfilerPlansARunnableFasterThanGpuPrefill) {
  const double predicted = *HeteroRun("hetero-tensor", "qwen2-0.5b", 256, 1, {"heterollm.profiler=predict"}).run().ttft_ms;
  EXPECT_LT(predicted, *HeteroRun("gpu-only", "qwen2-0.5b", 256, 1).run().ttft_ms);
  EXPECT_THROW(HeteroRun("hetero-tensor", "qwen2-0.5b", 64, 0, {"heterollm.gpu_tflops=2"}), config::ConfigError);
}

TEST(HeteroSystems, RejectsBadOptions) {
  EXPECT_THROW(HeteroRun("hetero-tensor", "qwen2-1.5b", 64, 0, {"heterollm.standard_lengths=[]"}), config::ConfigError);
  EXPECT_THROW(HeteroRun("hetero-tensor", "qwen2-1.5b", 64, 0, {"heterollm.prefill_home=cpu"}), config::ConfigError);
  EXPECT_THROW(HeteroRun("hetero-layer", "qwen2-1.5b", 64, 0, {"heterollm.fast_synk=false"}), config::ConfigError);
}

}  // namespace
}  // namespace socsim::systems
