// The service's chunk I/O path (chunk_io_path.h) against hand-computed costs, and its composition
// with the storage model in profile_costs.
#include "sim/systems/llms/chunk_io_path.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/systems/llms/load_planner.h"
#include "sim/systems/llms/service_costs.h"

namespace socsim::systems::llms {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

hw::SocSpec two_cluster_soc() {
  hw::SocSpec s;
  hw::CpuClusterSpec little;
  little.name = "little";
  little.clock_hz = 1'000'000'000;
  little.core_bandwidth = 5e9;
  little.fp32_flops_per_cycle = 8;  // the same per cycle: the clock makes "big" the fastest (hw::core_class)
  hw::CpuClusterSpec big;
  big.name = "big";
  big.clock_hz = 2'000'000'000;
  big.core_bandwidth = 10e9;
  big.fp32_flops_per_cycle = 8;
  s.cpu.clusters = {little, big};
  s.gpu.copy_fixed = seconds_to_ticks_ceil(10e-6);
  s.gpu.copy_bandwidth = 20e9;
  s.power.cpu_core["big"] = {0.8, 0.01, 0.4};
  return s;
}

model::ModelConfig layers(std::uint32_t n) {
  model::ModelConfig m;
  m.layers = n;
  return m;
}

TEST(ChunkIoPath, LayerRequestsOnTheFastestCoreByHand) {
  Options o;  // defaults: layer granularity, 20000 + 150000 cycles, 2 copies, upload
  const auto p = chunk_io_path(two_cluster_soc(), layers(32), o, 1, true);
  EXPECT_EQ(p.requests_per_chunk, 32u);
  EXPECT_EQ(p.tensors_per_request, 4u);  // K, V and their scales (INT8)
  EXPECT_DOUBLE_EQ(p.file_s, 10e-6);     // 20000 cycles at 2 GHz (the big core, not the little)
  EXPECT_DOUBLE_EQ(p.tensor_s, 75e-6);
  EXPECT_DOUBLE_EQ(p.copy_s_per_byte, 2 / 10e9);
  EXPECT_DOUBLE_EQ(p.pack_s_per_byte, 1 / 10e9);
  EXPECT_DOUBLE_EQ(p.upload_fixed_s, 10e-6);
  EXPECT_DOUBLE_EQ(p.upload_s_per_byte, 1 / 20e9);
  EXPECT_DOUBLE_EQ(p.host_power_w, 0.8);
  // Per chunk: 32 x (10 + 4 x (75 + 10)) us = 11.2 ms. A 4 MiB 8/8 chunk adds its stored bytes
  // copied twice (0.2 ns/B) and uploaded (0.05 ns/B).
  EXPECT_NEAR(p.host_per_chunk_s(), 11.2e-3, 1e-12);
  const double mib4 = 4.0 * 1024 * 1024;
  EXPECT_NEAR(p.host_seconds(1, mib4, mib4, 0), 11.2e-3 + mib4 * 0.25e-9, 1e-12);
  // A 2/8 chunk stores 1 MiB, is unpacked to 4 MiB on the host and uploads the 4 MiB.
  EXPECT_NEAR(p.host_seconds(1, mib4 / 4, mib4, mib4), 11.2e-3 + mib4 / 4 * 0.2e-9 + mib4 * 0.05e-9 + mib4 * 0.1e-9, 1e-12);
}

TEST(ChunkIoPath, ChunkGranularityFp16AndNoGpu) {
  Options o;
  o.io_granularity = IoGranularity::kChunk;
  auto p = chunk_io_path(two_cluster_soc(), layers(32), o, 2, true);
  EXPECT_EQ(p.requests_per_chunk, 1u);
  EXPECT_EQ(p.tensors_per_request, 64u);  // K and V of every layer, FP16 has no scales
  // Recompute off the GPU: the KV stays on the host, nothing is uploaded.
  p = chunk_io_path(two_cluster_soc(), layers(32), o, 2, false);
  EXPECT_EQ(p.upload_fixed_s, 0.0);
  EXPECT_EQ(p.upload_s_per_byte, 0.0);
  o.io_upload = false;
  EXPECT_EQ(chunk_io_path(two_cluster_soc(), layers(32), o, 2, true).upload_fixed_s, 0.0);
  hw::SocSpec none;
  EXPECT_THROW(chunk_io_path(none, layers(32), o, 2, true), std::invalid_argument);
  EXPECT_THROW(chunk_io_path(two_cluster_soc(), layers(0), o, 2, true), std::invalid_argument);
}

TEST(ChunkIoPath, ProfiledPerChunkCostsAddTheStorageRequestsAndTheHostWork) {
  const auto soc = hw::load_soc_spec(kRoot + "/soc_configs/jetson-orin-nx.yaml", {});
  const auto model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
  Options o;
  const std::uint64_t chunk = model.layers * 2ull * model.kv_heads * model.head_dim * o.chunk_tokens;
  const auto c = profile_costs(soc, model, o, chunk, 1);
  EXPECT_EQ(c.io.requests_per_chunk, model.layers);
  // The storage fit is of requests a layer's size: the NVMe's 80 us and 3.5 GB/s (jetson-orin-nx.yaml).
  EXPECT_NEAR(c.read_storage.per_request_s, 80e-6, 1e-9);
  EXPECT_NEAR(1 / c.read_storage.per_byte_s, 3.5e9, 3.5e9 * 1e-5);  // tick rounding of tiny requests
  EXPECT_NEAR(c.read.per_request_s, model.layers * c.read_storage.per_request_s + c.io.host_per_chunk_s(), 1e-12);
  EXPECT_NEAR(c.read.per_byte_s, c.read_storage.per_byte_s + c.io.copy_s_per_byte, 1e-18);
  // gpu-only recomputes on the GPU, so the KV is uploaded; cpu-only keeps it on the host.
  EXPECT_GT(c.read.per_delivered_byte_s, 0);
  EXPECT_GT(c.io.upload_fixed_s, 0);
  o.recompute_system = "cpu-only";
  EXPECT_EQ(profile_costs(soc, model, o, chunk, 1).io.upload_fixed_s, 0.0);
  o.recompute_system = "gpu-only";
  // With the host work zeroed and one request per chunk, what is left is the storage device alone
  // (the model before the I/O path existed).
  o.io_granularity = IoGranularity::kChunk;
  o.io_file_cycles = o.io_tensor_cycles = o.io_host_copies = 0;
  o.io_upload = false;
  const auto bare = profile_costs(soc, model, o, chunk, 1);
  EXPECT_NEAR(bare.read.per_request_s, bare.read_storage.per_request_s, 1e-15);
  EXPECT_NEAR(bare.read.per_byte_s, bare.read_storage.per_byte_s, 1e-20);
  EXPECT_EQ(bare.read.per_delivered_byte_s, 0.0);
  const double d = static_cast<double>(chunk);
  EXPECT_LT(bare.read.seconds(1, d, d, 0) * 5, c.read.seconds(1, d, d, 0));
}

TEST(ChunkIoPath, PlannerChargesDeliveredAndUnpackedBytes) {
  ServiceCosts c;
  c.read = {1e-3, 1e-9, 0.5e-9, 2e-9};
  const std::uint64_t chunk = 1'000'000;
  // 8/8: 1 ms + 1 MB stored (1 ms) + 1 MB delivered (0.5 ms).
  EXPECT_DOUBLE_EQ(read_seconds({1, 0, 0}, c.read, chunk), 2.5e-3);
  // 4/8: 0.5 MB stored, 1 MB delivered, 1 MB unpacked.
  EXPECT_DOUBLE_EQ(read_seconds({0, 1, 0}, c.read, chunk), 1e-3 + 0.5e-3 + 0.5e-3 + 2e-3);
  const auto p = plan_load({{1, 16, 0}, {1, 16, 16}, {1, 16, 32}, {2, 16, 48}}, c, chunk, 24, false);
  EXPECT_EQ(p.delivered_bytes, 4 * chunk);
  EXPECT_EQ(p.packed_bytes, 4 * chunk);
}

// With unpacking dearer than the bytes it saves, a compressed chunk costs more to read than a full
// one; the planner must still recompute the costliest chunks (brute force over every split).
TEST(ChunkIoPath, PlannerStaysExactWhenCompressedChunksCostMoreToRead) {
  ServiceCosts c;
  c.recompute_s = RecomputeCost::linear(0.02, 0.012);  // per chunk: one token each below
  c.read = {12.5e-3, 1 / 3.5e9, 0, 1 / 2e9};
  const std::uint64_t chunk = 4u << 20;
  ASSERT_GT(read_seconds({0, 1, 0}, c.read, chunk), read_seconds({1, 0, 0}, c.read, chunk));
  for (const LevelCounts missing : {LevelCounts{4, 6, 0}, LevelCounts{2, 3, 5}, LevelCounts{7, 1, 1}}) {
    for (std::uint32_t layers : {1u, 32u}) {
      double best = std::numeric_limits<double>::infinity();
      for (std::uint64_t a = 0; a <= missing[0]; ++a) {
        for (std::uint64_t b = 0; b <= missing[1]; ++b) {
          for (std::uint64_t d = 0; d <= missing[2]; ++d) {
            const LevelCounts read{missing[0] - a, missing[1] - b, missing[2] - d};
            best = std::min(best, pipelined_seconds(c.recompute_s.cold(static_cast<double>(a + b + d)), read_seconds(read, c.read, chunk), layers));
          }
        }
      }
      std::vector<MissingChunk> m;
      for (int w = 0; w < kLevels; ++w) {
        for (std::uint64_t i = 0; i < missing[w]; ++i) m.push_back({w, 1, 0});
      }
      EXPECT_NEAR(plan_load(m, c, chunk, layers, true).pipelined_s, best, 1e-12) << missing[0] << " " << missing[1] << " " << layers;
    }
  }
}

}  // namespace
}  // namespace socsim::systems::llms
