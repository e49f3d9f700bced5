#include "sim/systems/llms/context_store.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace socsim::systems::llms {

EvictionQueue::EvictionQueue(const std::vector<Context>& contexts, bool lctru) {
  for (std::uint32_t c = 0; c < contexts.size(); ++c) {
    const auto& ctx = contexts[c];
    if (ctx.locked) continue;
    for (std::uint32_t i = 0; i < ctx.chunks.size(); ++i) {
      if (ctx.chunks[i].in_memory) heap_.push_back({lctru ? ctx.chunks[i].level : 0, ctx.last_use_s, c, i});
    }
  }
  std::make_heap(heap_.begin(), heap_.end(), after);
}

bool EvictionQueue::after(const Key& a, const Key& b) {
  if (a.level != b.level) return a.level > b.level;  // heaviest sub-queue (level 0) first
  if (a.last_use != b.last_use) return a.last_use > b.last_use;
  if (a.context != b.context) return a.context > b.context;
  return a.chunk < b.chunk;
}

ChunkRef EvictionQueue::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), after);
  const Key k = heap_.back();
  heap_.pop_back();
  return {k.context, k.chunk};
}

std::vector<ChunkRef> eviction_order(const std::vector<Context>& contexts, bool lctru) {
  EvictionQueue q(contexts, lctru);
  std::vector<ChunkRef> out;
  while (!q.empty()) out.push_back(q.pop());
  return out;
}

ContextStore::ContextStore(std::uint32_t contexts, std::uint64_t base_chunk_bytes, std::uint64_t budget_bytes, bool drops_allowed)
    : contexts_(contexts), base_chunk_bytes_(base_chunk_bytes), budget_(budget_bytes), drops_allowed_(drops_allowed) {
  for (int l = 0; l < kLevels; ++l) {
    level_bytes_[static_cast<std::size_t>(l)] = static_cast<std::uint64_t>(std::llround(kLevelRatio[l] * static_cast<double>(base_chunk_bytes_)));
  }
}

std::uint64_t ContextStore::chunk_bytes(const Chunk& c) const { return level_bytes_.at(static_cast<std::size_t>(c.level)); }

std::uint64_t ContextStore::resident_bytes() const {
  std::uint64_t b = 0;
  for (const auto& ctx : contexts_) {
    for (const auto& ch : ctx.chunks) b += ch.in_memory ? chunk_bytes(ch) : 0;
  }
  return b;
}

void ContextStore::check_invariants(std::uint64_t slack) const {
  for (std::size_t c = 0; c < contexts_.size(); ++c) {
    for (std::size_t i = 0; i < contexts_[c].chunks.size(); ++i) {
      const auto& ch = contexts_[c].chunks[i];
      const std::string where = "context " + std::to_string(c) + " chunk " + std::to_string(i);
      if (ch.dropped && (ch.in_memory || ch.on_storage)) throw std::logic_error(where + ": dropped but still held");
      if (!ch.in_memory && !ch.on_storage && !(ch.dropped && drops_allowed_)) {
        throw std::logic_error(where + ": lost (not in memory, not on storage, not a recompute-by-design drop)");
      }
      if (ch.level < 0 || ch.level >= kLevels) throw std::logic_error(where + ": bad level");
    }
  }
  if (resident_bytes() > budget_ + slack) throw std::logic_error("resident context memory exceeds the budget");
}

}  // namespace socsim::systems::llms
