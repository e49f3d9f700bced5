// The service loop on a tiny model with hand-set costs: nothing lost at any step (invariants
// checked after every step), the budget kept, each policy's mechanics, determinism.
#include "sim/systems/llms/service_simulation.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace socsim::systems::llms {
namespace {

model::ModelConfig tiny_model() {
  model::ModelConfig m;
  m.id = "tiny";
  m.layers = 2;
  m.kv_heads = 1;
  m.head_dim = 8;
  m.max_context = 256;  // 16 chunks of 16 tokens
  return m;
}

ServiceCosts hand_costs() {
  ServiceCosts c;
  c.recompute_s = RecomputeCost::linear(0.010, 0.002 / 16);  // 2 ms a 16-token chunk
  c.recompute_j = RecomputeCost::linear(0.5, 0.1 / 16);
  c.read = {0.001, 1e-6};
  c.write = {0.002, 2e-6};
  c.read_j_per_byte = 1e-9;
  c.write_j_per_byte = 2e-9;
  return c;
}

ServiceConfig config(Policy p, std::uint32_t contexts, std::uint64_t budget) {
  ServiceConfig cfg;
  cfg.policy = p;
  cfg.contexts = contexts;
  cfg.memory_budget = budget;
  cfg.model = tiny_model();
  cfg.check_invariants = true;
  cfg.seed = 3;
  return cfg;
}

std::vector<Call> trace(std::uint32_t contexts) {
  TraceSpec t;
  t.contexts = contexts;
  t.hours = 10;
  t.seed = 5;
  return generate_trace(t, {{"a", 20, 200}, {"b", 5, 50}});
}

TEST(ServiceSimulation, EveryPolicyKeepsEveryChunkAndTheBudget) {
  // INT8 chunk = 2 layers x 2 x 1 x 8 x 16 = 512 B; a window = 16 chunks = 8 KiB (16 KiB FP16).
  for (Policy p : {Policy::kLlms, Policy::kLmk, Policy::kSwap, Policy::kVllmS, Policy::kVllmSq}) {
    const auto calls = trace(6);
    const auto r = simulate_service(config(p, 6, 20 * 1024), hand_costs(), calls);  // throws on a violation
    ASSERT_EQ(r.switch_s.size(), calls.size()) << policy_name(p);
    EXPECT_GT(r.evicted_chunks, 0u) << policy_name(p);
    for (double s : r.switch_s) EXPECT_GE(s, 0.0);
  }
}

TEST(ServiceSimulation, AblationSwitchesDoWhatTheySay) {
  const auto calls = trace(6);
  auto cfg = config(Policy::kLlms, 6, 16 * 1024);
  const auto full = simulate_service(cfg, hand_costs(), calls);
  EXPECT_LT(full.mean_kept_ratio, 0.5 + 1e-9);
  EXPECT_EQ(full.foreground_write_s, 0.0);  // AoT: every eviction is free

  cfg.options.compression = false;
  EXPECT_DOUBLE_EQ(simulate_service(cfg, hand_costs(), calls).mean_kept_ratio, 1.0);
  cfg.options.compression = true;

  cfg.options.lifecycle = false;  // write-back on eviction: callers wait for writes
  EXPECT_GT(simulate_service(cfg, hand_costs(), calls).foreground_write_s, 0.0);
  cfg.options.lifecycle = true;

  auto cheap = hand_costs();
  cheap.recompute_s = RecomputeCost::linear(0, 1e-10);  // recompute nearly free: the pipeline recomputes, off it cannot
  EXPECT_GT(simulate_service(cfg, cheap, calls).chunks_recomputed, 0u);
  cfg.options.recompute_pipeline = false;
  EXPECT_EQ(simulate_service(cfg, cheap, calls).chunks_recomputed, 0u);
}

TEST(ServiceSimulation, LmkRecomputesKilledContextsAndNeverTouchesStorage) {
  const auto r = simulate_service(config(Policy::kLmk, 6, 20 * 1024), hand_costs(), trace(6));
  EXPECT_GT(r.killed_contexts, 0u);
  EXPECT_GT(r.chunks_recomputed, 0u);
  EXPECT_EQ(r.bytes_read + r.bytes_written, 0u);
}

TEST(ServiceSimulation, SingleContextFitsAndNeverSwitches) {
  const auto r = simulate_service(config(Policy::kLlms, 1, 64 * 1024), hand_costs(), trace(1));
  for (double s : r.switch_s) EXPECT_EQ(s, 0.0);
}

TEST(ServiceSimulation, RejectsABudgetBelowOneWindow) {
  EXPECT_THROW(simulate_service(config(Policy::kVllmS, 2, 8 * 1024), hand_costs(), trace(2)), std::invalid_argument);
}

TEST(ServiceSimulation, DeterministicForASeed) {
  const auto a = simulate_service(config(Policy::kLlms, 4, 12 * 1024), hand_costs(), trace(4));
  const auto b = simulate_service(config(Policy::kLlms, 4, 12 * 1024), hand_costs(), trace(4));
  EXPECT_EQ(a.switch_s, b.switch_s);
  EXPECT_EQ(a.bytes_written, b.bytes_written);
}

TEST(ServiceSimulation, TheIoThreadsHostTimeAndEnergyFollowEveryChunkMoved) {
  // vllm-s: no compression, no recompute; every chunk read or written costs the I/O thread 1 ms
  // of host work at 2 W on top of the storage energy per byte.
  auto c = hand_costs();
  c.io.requests_per_chunk = 1;
  c.io.tensors_per_request = 0;
  c.io.file_s = 1e-3;
  c.io.host_power_w = 2;
  const auto r = simulate_service(config(Policy::kVllmS, 6, 20 * 1024), c, trace(6));
  ASSERT_GT(r.chunks_read, 0u);
  ASSERT_GT(r.chunks_written, 0u);
  EXPECT_NEAR(r.io_host_s, 1e-3 * static_cast<double>(r.chunks_read + r.chunks_written), 1e-12);
  EXPECT_NEAR(r.energy_j, static_cast<double>(r.bytes_read) * 1e-9 + static_cast<double>(r.bytes_written) * 2e-9 + 2 * r.io_host_s, 1e-9);
  // The thread's busy time is the storage side (hand costs: per chunk + per byte) and nothing else here.
  EXPECT_NEAR(r.io_busy_s, 0.001 * static_cast<double>(r.chunks_read) + 1e-6 * static_cast<double>(r.bytes_read) +
                               0.002 * static_cast<double>(r.chunks_written) + 2e-6 * static_cast<double>(r.bytes_written),
              1e-9);
  // llms: compressed chunks are packed on the way out and unpacked on the way in.
  auto p = c;
  p.io.pack_s_per_byte = 1e-6;
  const auto base = simulate_service(config(Policy::kLlms, 6, 16 * 1024), c, trace(6));
  const auto packed = simulate_service(config(Policy::kLlms, 6, 16 * 1024), p, trace(6));
  EXPECT_GT(packed.io_host_s, base.io_host_s);
  EXPECT_NEAR(packed.energy_j - base.energy_j, 2 * (packed.io_host_s - base.io_host_s), 1e-9);
}

TEST(ServiceSimulation, EvictingWaitsForTheAheadOfTimeWritesStillQueued) {
  // Call 1 fills context 0 (16 chunks); its ahead-of-time swap-out queues 16 writes of 10 s each.
  // Call 2, a second later, needs room for context 1 and evicts context 0's chunks: their memory
  // can go only once their copies are on storage, so it waits for the queue (~159 s).
  auto c = hand_costs();
  c.write = {10.0, 0};
  const std::vector<Call> calls = {{0.0, 0, 256}, {1.0, 1, 256}};
  const auto r = simulate_service(config(Policy::kLlms, 2, 10 * 1024), c, calls);
  ASSERT_GT(r.evicted_chunks, 0u);
  EXPECT_EQ(r.chunks_read, 0u);
  EXPECT_EQ(r.switch_s[0], 0.0);
  EXPECT_NEAR(r.switch_s[1], 16 * 10.0 - 1.0, 1e-9);
  // Calls spaced past the queue do not wait.
  const auto later = simulate_service(config(Policy::kLlms, 2, 10 * 1024), c, {{0.0, 0, 256}, {200.0, 1, 256}});
  EXPECT_EQ(later.switch_s[1], 0.0);
  // lmk writes nothing: a kill waits for nobody, and one call's recompute does not hold up the next
  // (each of the last two calls recomputes its 16 killed chunks: 10 ms + 16 x 2 ms, no wait).
  const auto lmk = simulate_service(config(Policy::kLmk, 2, 20 * 1024), c, {{0.0, 0, 256}, {1.0, 1, 256}, {2.0, 0, 0}, {2.01, 1, 0}});
  EXPECT_NEAR(lmk.switch_s[2], 0.042, 1e-12);
  EXPECT_NEAR(lmk.switch_s[3], 0.042, 1e-12);
}

TEST(CallTrace, PoissonRateAndPatterns) {
  TraceSpec t;
  t.contexts = 4;
  t.hours = 200;
  t.seed = 1;
  const std::vector<Dataset> ds = {{"small", 10, 20}, {"mid", 100, 120}, {"big", 1000, 1200}, {"mid2", 110, 130}};
  const auto calls = generate_trace(t, ds);
  EXPECT_NEAR(static_cast<double>(calls.size()), 200 * 12, 3 * 49);  // Poisson: 2400 +- 3 sigma
  for (std::size_t i = 1; i < calls.size(); ++i) EXPECT_LE(calls[i - 1].time_s, calls[i].time_s);
  for (const auto& c : calls) {
    EXPECT_GE(c.delta_tokens, ds[c.context].min_tokens);
    EXPECT_LE(c.delta_tokens, ds[c.context].max_tokens);
  }
  // Markov: the context just called is called again about half the time (decay 0.5 over 4 ranks: 8/15).
  t.pattern = Pattern::kMarkov;
  const auto m = generate_trace(t, ds);
  std::size_t repeats = 0;
  for (std::size_t i = 1; i < m.size(); ++i) repeats += m[i].context == m[i - 1].context;
  EXPECT_NEAR(static_cast<double>(repeats) / static_cast<double>(m.size() - 1), 8.0 / 15, 0.04);
  // Gaussian: the far-from-mean "big" context is called least.
  t.pattern = Pattern::kGaussian;
  std::vector<std::size_t> count(4, 0);
  for (const auto& c : generate_trace(t, ds)) ++count[c.context];
  EXPECT_LT(count[2], count[1]);
  EXPECT_LT(count[2], count[0]);
}

// What the recompute profile must cover: each context's tokens summed, a call adding at most the
// window, a context holding at most the window.
TEST(CallTrace, LongestContextSumsEachContextUpToTheWindow) {
  const std::vector<Call> calls = {{0, 0, 300}, {1, 1, 500}, {2, 0, 400}, {3, 2, 50}};
  EXPECT_EQ(longest_context_tokens(calls, 4096), 700u);
  EXPECT_EQ(longest_context_tokens(calls, 600), 600u);
  EXPECT_EQ(longest_context_tokens({{0, 0, 5000}}, 4096), 4096u);
  EXPECT_EQ(longest_context_tokens({}, 4096), 0u);
  EXPECT_EQ(longest_context_tokens(calls, 0), 700u);  // no window
}

}  // namespace
}  // namespace socsim::systems::llms
