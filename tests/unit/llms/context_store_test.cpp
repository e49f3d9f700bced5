// LCTRU and LRU eviction order, working-set locking, and the nothing-lost invariant.
#include "sim/systems/llms/context_store.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace socsim::systems::llms {
namespace {

Chunk resident(int level) {
  Chunk c;
  c.level = level;
  c.in_memory = true;
  c.tokens = 16;
  return c;
}

std::vector<Context> three_contexts() {
  // Context 0 used at t=10: levels {0, 2}; context 1 at t=5: {1, 0}; context 2 at t=20: {0}.
  std::vector<Context> ctx(3);
  ctx[0].last_use_s = 10;
  ctx[0].chunks = {resident(0), resident(2)};
  ctx[1].last_use_s = 5;
  ctx[1].chunks = {resident(1), resident(0)};
  ctx[2].last_use_s = 20;
  ctx[2].chunks = {resident(0)};
  return ctx;
}

TEST(EvictionOrder, LctruTakesTheHeaviestSubQueueFirstLruWithin) {
  const auto order = eviction_order(three_contexts(), true);
  // 8/8 sub-queue in LRU order: ctx1 (t=5) chunk 1, ctx0 (t=10) chunk 0, ctx2 (t=20) chunk 0;
  // then 4/8: ctx1 chunk 0; then 2/8: ctx0 chunk 1.
  const std::vector<ChunkRef> want = {{1, 1}, {0, 0}, {2, 0}, {1, 0}, {0, 1}};
  EXPECT_EQ(order, want);
}

TEST(EvictionOrder, LruIgnoresLevelsLaterChunksFirst) {
  const auto order = eviction_order(three_contexts(), false);
  const std::vector<ChunkRef> want = {{1, 1}, {1, 0}, {0, 1}, {0, 0}, {2, 0}};
  EXPECT_EQ(order, want);
}

TEST(EvictionOrder, LockedContextAndSwappedChunksAreNotCandidates) {
  auto ctx = three_contexts();
  ctx[1].locked = true;
  ctx[0].chunks[0].in_memory = false;
  ctx[0].chunks[0].on_storage = true;
  const auto order = eviction_order(ctx, true);
  const std::vector<ChunkRef> want = {{2, 0}, {0, 1}};
  EXPECT_EQ(order, want);
}

TEST(ContextStore, InvariantCatchesALostChunk) {
  ContextStore store(1, 100, 1000, false);
  store.contexts()[0].chunks = {resident(0)};
  EXPECT_NO_THROW(store.check_invariants());
  store.contexts()[0].chunks[0].in_memory = false;  // evicted without a storage copy
  EXPECT_THROW(store.check_invariants(), std::logic_error);
  store.contexts()[0].chunks[0].dropped = true;      // a drop is only legal for a recomputing policy
  EXPECT_THROW(store.check_invariants(), std::logic_error);
  ContextStore lmk(1, 100, 1000, true);
  lmk.contexts()[0].chunks = {store.contexts()[0].chunks[0]};
  EXPECT_NO_THROW(lmk.check_invariants());
}

TEST(ContextStore, BytesByLevelAndBudget) {
  ContextStore store(1, 1000, 1500, false);
  store.contexts()[0].chunks = {resident(0), resident(1), resident(2)};  // 1000 + 500 + 250
  EXPECT_EQ(store.resident_bytes(), 1750u);
  EXPECT_THROW(store.check_invariants(), std::logic_error);
  EXPECT_NO_THROW(store.check_invariants(250));
}

}  // namespace
}  // namespace socsim::systems::llms
