// LoweringCache: one entry per distinct (op, precision, threads, attention, kernel choice,
// engine), and references that stay valid however many entries follow (executors hold them
// while a job runs; the tables are hashed, so growth rehashes).
#include "sim/runtime/lowering/lowering_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"

namespace socsim::runtime::lowering {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

struct Fixture {
  model::ModelConfig model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
  config::ConfigTree tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  hw::SocSpec soc = hw::parse_soc_spec(tree);
};

model::OpDesc matmul(std::uint64_t m) { return {"q_proj", model::OpKind::kMatMul, m, 896, 896, 1, 0, 896 * 896}; }

TEST(LoweringCache, EachKeyFieldMakesItsOwnEntry) {
  Fixture f;
  LoweringCache cache(f.model, f.soc.npu);
  const kernels::CpuWork& base = cache.cpu(matmul(16), Precision::kW4A16, 4, nullptr);
  EXPECT_EQ(&base, &cache.cpu(matmul(16), Precision::kW4A16, 4, nullptr));  // a hit
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_NE(&base, &cache.cpu(matmul(17), Precision::kW4A16, 4, nullptr));                             // rows
  EXPECT_NE(&base, &cache.cpu(matmul(16), Precision::kW8A8, 4, nullptr));                              // precision
  EXPECT_NE(&base, &cache.cpu(matmul(16), Precision::kW4A16, 2, nullptr));                             // threads
  EXPECT_NE(&base, &cache.cpu(matmul(16), Precision::kW4A16, 4, nullptr, CpuEngine::kLlamaCpp));     // engine
  model::OpDesc renamed = matmul(16);
  renamed.name = "k_proj";
  EXPECT_NE(&base, &cache.cpu(renamed, Precision::kW4A16, 4, nullptr));  // the work's names carry the op's
  EXPECT_EQ(cache.size(), 6u);

  // Softmax keys on its attention (decode: the KV length grows each step).
  const auto softmax = [](std::uint64_t kv) { return model::OpDesc{"softmax", model::OpKind::kSoftmax, 1, 0, kv, 14, 14 * kv, 0}; };
  kernels::AttentionShape a{14, 2, 64, 1, 299, 300};
  const kernels::GpuWork& s300 = cache.gpu(softmax(300), Precision::kFp16, &a);
  EXPECT_EQ(&s300, &cache.gpu(softmax(300), Precision::kFp16, &a));
  a.kv_len = 301, a.q_pos0 = 300;
  EXPECT_NE(&s300, &cache.gpu(softmax(301), Precision::kFp16, &a));

  // NPU entries key on the kernel choice too.
  const NpuOpWork& graph = cache.npu(matmul(16), Precision::kW4A16, nullptr, {});
  NpuKernelChoice custom;
  custom.w4a16 = W4A16Kernel::kCustom;
  EXPECT_NE(&graph, &cache.npu(matmul(16), Precision::kW4A16, nullptr, custom));
  EXPECT_EQ(&graph, &cache.npu(matmul(16), Precision::kW4A16, nullptr, {}));
}

TEST(LoweringCache, ManyNamesEachKeepTheirEntries) {
  // Op names are interned in a table that grows as it fills (and keeps its ids across clear()):
  // hundreds of names, asked again in another order after the growth and after a clear, each
  // find their own entry and no other's, and names that share a prefix or a length differ.
  Fixture f;
  LoweringCache cache(f.model, f.soc.npu);
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back(i % 3 == 0 ? "op" + std::to_string(i) : "a_longer_op_name_" + std::to_string(i));
  names.push_back("q_proj.h1");  // the per-head suffix is left out of the key: q_proj's entry
  std::vector<const kernels::CpuWork*> first;
  for (const auto& n : names) {
    model::OpDesc op = matmul(16);
    op.name = n;
    first.push_back(&cache.cpu(op, Precision::kW4A16, 4, nullptr));
  }
  EXPECT_EQ(cache.size(), 300u + 1u);
  for (std::size_t i = names.size(); i-- > 0;) {
    model::OpDesc op = matmul(16);
    op.name = names[i];
    EXPECT_EQ(first[i], &cache.cpu(op, Precision::kW4A16, 4, nullptr)) << names[i];
  }
  EXPECT_EQ(&cache.cpu(matmul(16), Precision::kW4A16, 4, nullptr), first.back());
  EXPECT_EQ(cache.size(), 300u + 1u);
  cache.clear();
  for (const auto& n : names) {
    model::OpDesc op = matmul(16);
    op.name = n;
    (void)cache.cpu(op, Precision::kW4A16, 4, nullptr);
  }
  EXPECT_EQ(cache.size(), 300u + 1u);
}

// The executor clears the cache between plans past 4 MiB of NPU work (a decode's attention is a
// kernel per key length): npu_bytes is what the NPU entries hold, and clear() forgets them all.
TEST(LoweringCache, CountsTheNpuWorkItHoldsUntilCleared) {
  Fixture f;
  LoweringCache cache(f.model, f.soc.npu);
  cache.cpu(matmul(16), Precision::kW4A16, 4, nullptr);
  cache.gpu(matmul(16), Precision::kW4A16, nullptr);
  EXPECT_EQ(cache.npu_bytes(), 0u);  // CPU and GPU work is a few tasks per op: not counted
  std::uint64_t held = 0;
  held += kernels::host_bytes(cache.npu(matmul(16), Precision::kW4A16, nullptr, {}).work);
  held += kernels::host_bytes(cache.npu(matmul(64), Precision::kW4A16, nullptr, {}).work);
  EXPECT_GT(held, 0u);
  EXPECT_EQ(cache.npu_bytes(), held);
  cache.npu(matmul(16), Precision::kW4A16, nullptr, {});  // a hit holds nothing more
  EXPECT_EQ(cache.npu_bytes(), held);
  cache.clear();
  EXPECT_EQ(cache.npu_bytes(), 0u);
  EXPECT_EQ(cache.size(), 0u);
  const std::uint64_t again = kernels::host_bytes(cache.npu(matmul(16), Precision::kW4A16, nullptr, {}).work);  // lowered afresh
  EXPECT_EQ(cache.npu_bytes(), again);
}

TEST(LoweringCache, ReferencesSurviveGrowth) {
  Fixture f;
  LoweringCache cache(f.model, f.soc.npu);
  const kernels::GpuWork& first = cache.gpu(matmul(1), Precision::kW4A16, nullptr);
  const kernels::GpuWork copy = first;
  for (std::uint64_t m = 2; m <= 2000; ++m) cache.gpu(matmul(m), Precision::kW4A16, nullptr);
  EXPECT_EQ(cache.size(), 2000u);
  EXPECT_EQ(&first, &cache.gpu(matmul(1), Precision::kW4A16, nullptr));
  ASSERT_EQ(first.kernels.size(), copy.kernels.size());
  for (std::size_t i = 0; i < copy.kernels.size(); ++i) {
    EXPECT_EQ(first.kernels[i].name, copy.kernels[i].name);
    EXPECT_EQ(first.kernels[i].flops, copy.kernels[i].flops);
    EXPECT_EQ(first.kernels[i].dram_bytes, copy.kernels[i].dram_bytes);
  }
}

}  // namespace
}  // namespace socsim::runtime::lowering
