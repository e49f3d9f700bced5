#pragma once
// Runs of NPU work alone, remembered so that the next run of the same work alone can be replayed
// instead of simulated event by event (sim/runtime/npu_alone_replay.h says when that is exact).
// A run is keyed by a 128-bit signature of the work; an entry is recorded only once its work has
// been seen before (one-off work, e.g. attention at a KV length met once, is never recorded).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/core/resource.h"
#include "sim/core/statistics.h"
#include "sim/core/time.h"
#include "sim/hw/memory/dram_model.h"

namespace socsim::hw {

// What one run of NPU work alone left behind: its duration and every statistic of the NPU and of
// its DRAM ports over it, as if it had started at time 0.
struct NpuRunRecord {
  Tick duration = 0;
  std::vector<Resource::Stats> units;  // scalar threads, HVX, HMX, DMA, RPC
  BusyTime busy;
  std::uint64_t dma_bytes = 0, hmx_cycles = 0;
  DramModel::Stats dram;
  std::vector<DramModel::PortStats> ports;  // npu, npu.dma, npu.core, npu.core.hvxN
  std::vector<Tick> node_time;              // a graph's: each node's time from start to done
};

class NpuRunMemo {
 public:
  using Key = std::pair<std::uint64_t, std::uint64_t>;
  // Bounds host memory (a record is about a kilobyte): past it the memo starts over.
  static constexpr std::size_t kLimit = 4096;

  // The record of `key`; nullptr if there is none yet (then the key counts as seen).
  const NpuRunRecord* find(const Key& key) {
    if (entries_.size() >= kLimit && !entries_.contains(key)) entries_.clear();
    Entry& e = entries_[key];
    ++e.seen;
    return e.record ? &*e.record : nullptr;
  }
  // Whether `key` was seen before the find() that just missed: worth recording.
  bool seen_before(const Key& key) const {
    auto it = entries_.find(key);
    return it != entries_.end() && it->second.seen > 1;
  }
  const NpuRunRecord& store(const Key& key, NpuRunRecord r) { return *(entries_[key].record = std::move(r)); }
  std::uint64_t replays() const { return replays_; }
  void count_replay() { ++replays_; }

 private:
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return static_cast<std::size_t>(k.first ^ (k.second * 0x9e3779b97f4a7c15ull)); }
  };
  struct Entry {
    std::uint32_t seen = 0;
    std::optional<NpuRunRecord> record;
  };
  std::unordered_map<Key, Entry, KeyHash> entries_;
  std::uint64_t replays_ = 0;
};

}  // namespace socsim::hw
