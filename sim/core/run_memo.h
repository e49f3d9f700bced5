#pragma once
// Runs of a unit's work alone, remembered so that the next run of the same work alone can be
// replayed instead of simulated event by event (the NPU's: sim/runtime/npu_alone_replay.h; the
// CPU's: sim/hw/cpu/cpu_complex.h say when that is exact). A run is keyed by a 128-bit signature
// of what its timing depends on; an entry is recorded only once its work has been seen before
// (one-off work, e.g. attention at a KV length met once, is never recorded).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "sim/core/signature.h"
#include "sim/core/simulator.h"

namespace socsim {

template <class Record>
class RunMemo {
 public:
  using Key = Signature;
  // Bounds host memory (a record is at most about a kilobyte): past it the memo starts over.
  static constexpr std::size_t kLimit = 4096;

  // Records are shared, not copied: a replay holds its record while its delay runs (the memo may
  // start over meanwhile), and a copy of a record's vectors was a few allocations per replay.
  using Shared = std::shared_ptr<const Record>;

  // The record of `key`; null if there is none yet (then the key counts as seen).
  Shared find(const Key& key) {
    if (entries_.size() >= kLimit && !entries_.contains(key)) entries_.clear();
    Entry& e = entries_[key];
    ++e.seen;
    return e.record;
  }
  // Whether `key` was seen before the find() that just missed: worth recording.
  bool seen_before(const Key& key) const {
    auto it = entries_.find(key);
    return it != entries_.end() && it->second.seen > 1;
  }
  Shared store(const Key& key, Record r) { return entries_[key].record = std::make_shared<const Record>(std::move(r)); }
  // The record to replay `key`'s run with from sim.now(), or null: recorded by `record()` the
  // second time the key is met (never the first: one-off work stays unrecorded); not replayed when
  // the run fired one event or none (a replay fires one: it would save nothing, and
  // Simulator::note_replay's count of saved events stays exact) or when an event is pending at or
  // before its end (something could start beside it). Record has `duration` and `events`.
  template <class RecordFn>
  Shared replayable(const Key& key, const Simulator& sim, RecordFn&& record) {
    Shared rec = find(key);
    if (!rec) {
      if (!seen_before(key)) return nullptr;
      rec = store(key, record());
    }
    if (rec->events <= 1) return nullptr;
    const Tick next = sim.next_event_time();
    if (next != kTickMax && next <= sim.checked_add(sim.now(), rec->duration)) return nullptr;
    return rec;
  }
  std::uint64_t replays() const { return replays_; }
  void count_replay() { ++replays_; }

 private:
  struct Entry {
    std::uint32_t seen = 0;
    Shared record;
  };
  std::unordered_map<Key, Entry, SignatureHash> entries_;
  std::uint64_t replays_ = 0;
};

}  // namespace socsim
