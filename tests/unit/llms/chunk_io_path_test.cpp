// The service's chunk I/O path (chunk_io_path.h) against hand-computed costs, and its composition
// with the storage model in profile_costs.
#include "sim/systems/llms/chunk_io_path.h"

#include <gtest/gtest.h>

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
  hw::CpuClusterSpec big;
  big.name = "big";
  big.clock_hz = 2'000'000'000;
  big.core_bandwidth = 10e9;
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
  Options o;  // defaults: layer granularity, 20000 + 150000 cycles, 2 copies, upload (gpu-only recompute)
  const auto p = chunk_io_path(two_cluster_soc(), layers(32), o, 1);
  EXPECT_EQ(p.requests_per_chunk, 32u);
  EXPECT_EQ(p.tensors_per_request, 4u);  // K, V and their scales (INT8)
  EXPECT_DOUBLE_EQ(p.file_s, 10e-6);     // 20000 cycles at 2 GHz (the big core, not the little)
  EXPECT_DOUBLE_EQ(p.tensor_s, 75e-6);
  EXPECT_DOUBLE_EQ(p.copy_s_per_byte, 2 / 10e9);
  EXPECT_DOUBLE_EQ(p.upload_fixed_s, 10e-6);
  EXPECT_DOUBLE_EQ(p.upload_s_per_byte, 1 / 20e9);
  EXPECT_DOUBLE_EQ(p.host_power_w, 0.8);
  // Per chunk: 32 x (10 + 4 x (75 + 10)) us = 11.2 ms; a 4 MiB chunk adds 4 MiB x (0.2 + 0.05) ns.
  EXPECT_NEAR(p.host_per_chunk_s(), 11.2e-3, 1e-12);
  const double mib4 = 4.0 * 1024 * 1024;
  EXPECT_NEAR(p.host_seconds(1, mib4), 11.2e-3 + mib4 * 0.25e-9, 1e-12);
  // Unpacking a compressed chunk is one pass over the rebuilt INT8 bytes.
  EXPECT_NEAR(p.host_seconds(1, mib4 / 4, mib4) - p.host_seconds(1, mib4 / 4), mib4 / 10e9, 1e-12);
}

TEST(ChunkIoPath, ChunkGranularityFp16AndNoGpu) {
  Options o;
  o.io_granularity = IoGranularity::kChunk;
  auto p = chunk_io_path(two_cluster_soc(), layers(32), o, 2);
  EXPECT_EQ(p.requests_per_chunk, 1u);
  EXPECT_EQ(p.tensors_per_request, 64u);  // K and V of every layer, FP16 has no scales
  o.recompute_system = "cpu-only";        // the KV stays on the host: nothing uploaded
  p = chunk_io_path(two_cluster_soc(), layers(32), o, 2);
  EXPECT_EQ(p.upload_fixed_s, 0.0);
  EXPECT_EQ(p.upload_s_per_byte, 0.0);
  o.recompute_system = "gpu-only";
  o.io_upload = false;
  EXPECT_EQ(chunk_io_path(two_cluster_soc(), layers(32), o, 2).upload_fixed_s, 0.0);
  hw::SocSpec none;
  EXPECT_THROW(chunk_io_path(none, layers(32), o, 2), std::invalid_argument);
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
  EXPECT_NEAR(c.read.per_byte_s, c.read_storage.per_byte_s + c.io.copy_s_per_byte + c.io.upload_s_per_byte, 1e-18);
  EXPECT_EQ(c.read.per_unpacked_byte_s, c.io.unpack_s_per_byte);
  EXPECT_EQ(c.write.per_unpacked_byte_s, 0.0);
  // With the host work zeroed and one request per chunk, what is left is the storage device alone
  // (the model before the I/O path existed).
  o.io_granularity = IoGranularity::kChunk;
  o.io_file_cycles = o.io_tensor_cycles = o.io_host_copies = 0;
  o.io_upload = false;
  const auto bare = profile_costs(soc, model, o, chunk, 1);
  EXPECT_NEAR(bare.read.per_request_s, bare.read_storage.per_request_s, 1e-15);
  EXPECT_NEAR(bare.read.per_byte_s, bare.read_storage.per_byte_s, 1e-20);
  EXPECT_LT(bare.read.seconds(1, static_cast<double>(chunk)) * 5, c.read.seconds(1, static_cast<double>(chunk)));
}

TEST(ChunkIoPath, PlannerChargesUnpackingOnlyForCompressedChunks) {
  ServiceCosts c;
  c.read = {1e-3, 1e-9, 2e-9};
  const std::uint64_t chunk = 1'000'000;
  EXPECT_DOUBLE_EQ(read_seconds({1, 0, 0}, c.read, chunk), 1e-3 + 1e-3);
  // A 4/8 chunk: 0.5 MB read, 1 MB of INT8 rebuilt.
  EXPECT_DOUBLE_EQ(read_seconds({0, 1, 0}, c.read, chunk), 1e-3 + 0.5e-3 + 2e-3);
  EXPECT_DOUBLE_EQ(read_seconds({0, 0, 2}, c.read, chunk), 2e-3 + 0.5e-3 + 4e-3);
  EXPECT_EQ(plan_load({0, 3, 1}, c, chunk, 24, false).unpacked_bytes, 4 * chunk);
}

}  // namespace
}  // namespace socsim::systems::llms
