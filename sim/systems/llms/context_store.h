#pragma once
// The service's context memory (LLMS §3.1): each context's KV cache as chunks of chunk_tokens
// tokens across all layers, each with a compression level, a copy in memory and/or on storage.
// The prompt/output text is always memory-resident, so any chunk can be recomputed; but only a
// policy that recomputes on purpose (LMK) may drop a chunk that has no storage copy.
//
// Eviction order (eviction_order):
//   LCTRU (LLMS §3.4): one sub-queue per compression level, heaviest (8/8) first, each in LRU
//   order (least recently used context first; within a context, later chunks first).
//   LRU: least recently used context first, later chunks first.
// Chunks of a locked context (the one being called: its working set) are never candidates.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/systems/llms/compression_levels.h"

namespace socsim::systems::llms {

struct Chunk {
  int level = 0;            // index into kLevelRatio
  bool in_memory = false;
  bool on_storage = false;  // a storage copy of the current contents exists
  bool dropped = false;     // neither: only its text remains (LMK kill)
  std::uint32_t tokens = 0;
  double density = 1;
};

struct Context {
  std::vector<Chunk> chunks;
  double last_use_s = -1;   // time of the last call; -1: never called
  bool locked = false;
};

struct ChunkRef {
  std::uint32_t context = 0, chunk = 0;
  bool operator==(const ChunkRef&) const = default;
};

// In-memory chunks of unlocked contexts, taken one at a time in the order a reclaim takes them.
// A reclaim usually needs a few of tens of thousands, so the order is a heap, not a sort (sorting
// every chunk on every call was half of a long serve's time).
class EvictionQueue {
 public:
  EvictionQueue(const std::vector<Context>& contexts, bool lctru);
  bool empty() const { return heap_.empty(); }
  ChunkRef pop();

 private:
  struct Key {
    int level;
    double last_use;
    std::uint32_t context, chunk;
  };
  // Whether a is taken after b: heaviest sub-queue, least recent context, its later chunks first.
  static bool after(const Key& a, const Key& b);
  std::vector<Key> heap_;
};

// The whole order at once (tests, and what the queue yields one by one).
std::vector<ChunkRef> eviction_order(const std::vector<Context>& contexts, bool lctru);

class ContextStore {
 public:
  // base_chunk_bytes: one chunk at level 0 (8/8 of the policy's base precision).
  ContextStore(std::uint32_t contexts, std::uint64_t base_chunk_bytes, std::uint64_t budget_bytes, bool drops_allowed);

  std::vector<Context>& contexts() { return contexts_; }
  const std::vector<Context>& contexts() const { return contexts_; }
  std::uint64_t chunk_bytes(const Chunk& c) const;
  std::uint64_t base_chunk_bytes() const { return base_chunk_bytes_; }
  std::uint64_t budget_bytes() const { return budget_; }
  // Sum of the sizes of in-memory chunks (recounted: the accounting cannot drift).
  std::uint64_t resident_bytes() const;

  // Nothing lost and the budget kept: every chunk is in memory, on storage, or dropped only when
  // the policy recomputes dropped chunks; resident bytes within the budget (`slack` lets the
  // caller check mid-claim). Throws std::logic_error naming the chunk.
  void check_invariants(std::uint64_t slack = 0) const;

 private:
  std::vector<Context> contexts_;
  std::uint64_t base_chunk_bytes_, budget_;
  std::array<std::uint64_t, kLevels> level_bytes_{};  // chunk_bytes of each level, rounded once
  bool drops_allowed_;
};

}  // namespace socsim::systems::llms
