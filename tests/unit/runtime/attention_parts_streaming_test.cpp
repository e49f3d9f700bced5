// An NPU attention op's parts streamed from the flash kernel into their coalescers
// (lower_attention_parts_npu) against the whole kernel made, split and coalesced.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/lowering/attention_lowering.h"
#include "sim/runtime/lowering/npu_step_coalescing.h"

namespace socsim::runtime {
namespace {

using kernels::NpuStep;

hw::SocSpec soc_8gen3() {
  auto tree = config::ConfigTree::load_file(std::string(SOCSIM_SOURCE_DIR) + "/soc_configs/snapdragon-8gen3.yaml");
  return hw::parse_soc_spec(tree);
}

// The parts are streamed from the flash kernel into their coalescers (the kernel is never held
// whole): each must be, field for field and packet for packet, the materialized kernel split by
// part_of_step and coalesced, as before streaming. Prompt and decode, GQA and a batch folded into
// heads, K and V resident in TCM or staged per chunk (a small TCM), each exp; and the INT8 graph.
TEST(AttentionPartsStreaming, AreTheWholeKernelSplitAndCoalesced) {
  hw::NpuSpec npu = soc_8gen3().npu;
  hw::NpuSpec small_tcm = npu;
  small_tcm.tcm_bytes = 512 * 1024;
  const kernels::AttentionShape shapes[] = {
      {12, 2, 128, 256, 0, 256},       // a prompt
      {12, 2, 128, 1, 299, 300},       // a decode step
      {32 * 4, 8 * 4, 128, 100, 20, 120},  // a batch of 4 chunked-prefill sequences folded into heads
      {8, 8, 64, 33, 4000, 4033},      // more keys than the small TCM holds: K and V per chunk
  };
  int compared = 0;
  for (const hw::NpuSpec* spec : {&npu, &small_tcm}) {
    for (const auto& shape : shapes) {
      for (auto p : {Precision::kFp16, Precision::kW4A16, Precision::kW8A8}) {
        for (auto exp : {kernels::ExpVariant::kLut, kernels::ExpVariant::kPoly, kernels::ExpVariant::kExact}) {
          SCOPED_TRACE(std::to_string(shape.heads) + " heads, q " + std::to_string(shape.q_len) + ", kv " + std::to_string(shape.kv_len) +
                       ", tcm " + std::to_string(spec->tcm_bytes) + ", precision " + std::to_string(static_cast<int>(p)) + ", exp " +
                       std::to_string(static_cast<int>(exp)));
          kernels::NpuWork whole = lowering::attention_kernel_npu(shape, p, *spec, exp);
          std::array<kernels::NpuWork, 3> want;
          std::uint32_t nodes = 0;
          for (auto& step : whole.steps) {
            if (step.kind == NpuStep::Kind::kGraphCall) {
              nodes += step.graph_ops;
            } else {
              want[static_cast<std::size_t>(lowering::part_of_step(step.name))].steps.push_back(step);
            }
          }
          const auto got = lowering::lower_attention_parts_npu(shape, p, *spec, exp);
          for (std::size_t q = 0; q < 3; ++q) {
            const kernels::NpuWork w = lowering::coalesce_sequential_steps(want[q], *spec);
            EXPECT_EQ(got[q].graph_nodes, nodes == 0 ? 1u : (q == 0 ? nodes : 0u));
            ASSERT_EQ(got[q].work.steps.size(), w.steps.size()) << "part " << q;
            ASSERT_FALSE(w.steps.empty()) << "part " << q;
            for (std::size_t i = 0; i < w.steps.size(); ++i) {
              const NpuStep &a = got[q].work.steps[i], &b = w.steps[i];
              EXPECT_EQ(a.kind, b.kind);
              EXPECT_EQ(a.name, b.name);
              EXPECT_TRUE(a.gemm == b.gemm);
              EXPECT_EQ(a.home, b.home);
              EXPECT_EQ(a.hmx_cycles, b.hmx_cycles);
              EXPECT_EQ(a.packets, b.packets);  // exactly: the same additions in the same order
              EXPECT_EQ(a.threads, b.threads);
              EXPECT_EQ(a.bytes, b.bytes);
              EXPECT_EQ(a.transfers, b.transfers);
              EXPECT_EQ(a.stage, b.stage);
              EXPECT_EQ(a.iteration, b.iteration);
            }
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_EQ(compared, 2 * 4 * 3 * 3 * 3);
}

}  // namespace
}  // namespace socsim::runtime
