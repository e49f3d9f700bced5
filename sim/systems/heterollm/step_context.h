#pragma once
// A matmul partition costed in the step it runs in. HeteroLLM's solver (4.3) costs a candidate
// alone: max(T_gpu, T_npu) plus the synchronization. Where the GPU is home (decode, and prefill
// with prefill_home=gpu) that misses how the host drives the GPU: one host thread submits every
// kernel into the in-order queue (gpu.submit each) and runs ahead of the GPU while kernels take
// longer than a submission. A GPU-only matmul is more kernels in that stream; a part on the NPU
// stops the host: the kernels after the op need its output, so the host submits them only once
// the NPU part has ended (fast sync: the executor's next GPU job starts when the NPU job ends),
// with what the queue still holds (the GPU part) as its only lead. A small model's decode step is
// submission-bound (qwen2-0.5b on the 8 Gen 3: 21 kernels a layer x 15 us = 315 us against
// ~230 us of kernels), so a GPU-only matmul's time hides behind submissions while a split's does
// not: costed alone, a gate/up split predicted 4 us faster ran 80 us a layer slower. A large
// model's step is GPU-bound and its long GPU parts rebuild the lead, so there the part's own
// saving is what counts.
//
// The step is its ops in program order: GPU kernels (each one submission and its time on the
// queue, alone), instances of the partitioned matmul groups, and host waits (a CPU op such as the
// sampler reads the GPU's output: the host waits for the queue). time() replays the host, the
// queue and the NPU over the step for one cost per group; without DRAM sharing (below) it is
// monotone in every part time (gpu, npu_time), so a lower bound of a group's part times gives a
// lower bound of the step's time (the solver's search relies on it).
//
// DRAM sharing: a group's NPU part starts its work once the kernels before it have run and the
// host waits for its end, so the only work it overlaps is its own GPU part. Their times are each
// alone; each moves its bytes as a flow at its path's cap beside its compute (as the GPU and NPU
// models run a kernel), so it ends when the later of its time alone and its flow is done. While
// both flows run they share DRAM's bandwidth for two masters (set_shared_bandwidth) max-min
// fairly under their caps, as the DRAM model shares flows (sim/hw/memory/dram_model.h): a
// memory-bound part slows, a compute-bound one (the NPU's GEMV at batch 4) keeps its time while
// its flow still ends first. On the 8 Gen 3 a decode gate/up split's NPU GEMV starts
// once its graph call is done, behind the layer's attention, and streams beside the GPU's up
// projection: the profile, which calls the graph with the GPU part on an idle SoC, has the two
// barely overlap (llama-3.2-1b: the parts ran 526 and 348 us in the step against 458 and 295
// profiled). Sharing only delays a part, and the replay without it is monotone, so the replay
// without sharing of a group's lower bounds bounds the replay with sharing of its times, from any
// state both start from: the solver resumes it where the step with sharing stands before the
// group's first instance (before(), which does not read the group's cost), a bound as tight as the
// groups before allow.
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/time.h"

namespace socsim::systems::heterollm {

struct GroupCost {
  // The GPU part: its time on the queue (of its kernels, after the first submission: a profiled
  // part pays one), spread evenly over the `submissions` kernels the host submits for it (0: no
  // GPU part).
  Tick gpu = 0;
  std::uint32_t submissions = 0;
  // A part on the NPU (the unit that is not home): its time alone (graph call included), of which
  // `npu_call` is the graph call's fixed cost. With fast sync the host calls the graph as soon as
  // the NPU is free and the producer kernels are submitted, so the call runs while they do (its
  // synchronization point waits for their flag inside the graph).
  bool npu = false;
  Tick npu_time = 0, npu_call = 0;
  // Each part's DRAM traffic in bytes (0: none modeled) and its flow's rate alone (bytes/s), for
  // the two parts' sharing of DRAM.
  double gpu_bytes = 0, npu_bytes = 0, gpu_rate = 0, npu_rate = 0;
};

// Two parts sharing DRAM: each starts at `start`, takes `alone` ticks by itself, and moves `bytes`
// as a flow from its start at up to `rate` bytes/s (raised to bytes over its time alone if that is
// more: alone, the flow never outlasts the part). While both flows run, `capacity` bytes/s is
// shared max-min fairly under their rates. Each ends at the later of its time alone and its
// flow's end, rounded up to ticks.
struct SharedRun {
  Tick start = 0, alone = 0;
  double bytes = 0, rate = 0;
};
std::pair<Tick, Tick> share_dram(const SharedRun& a, const SharedRun& b, double capacity);

class StepContext {
 public:
  void add_kernel(Tick queue_time) { analysed_ = false, items_.push_back({Kind::kKernel, queue_time}); }
  void add_group(std::uint32_t group) { analysed_ = false, items_.push_back({Kind::kGroup, group}); }
  void add_host_wait() { analysed_ = false, items_.push_back({Kind::kHostWait, 0}); }
  // DRAM's achievable bandwidth (bytes/s) while two masters stream; 0 (the default): the parts
  // do not slow each other.
  void set_shared_bandwidth(double bytes_per_s) { shared_ = bytes_per_s; }
  // Where a replay stands before an item: the host's and the queue's times, the NPU's.
  struct Replay {
    Tick host = 0, queue = 0, npu_free = 0;  // the host has submitted its last kernel; the queue
                                             // empties; the NPU's last part ended
    std::size_t next = 0;                    // the item it stands before
  };
  // The step's time from an idle host and queue to the end of its last kernel or group, with
  // every instance of group g costed `groups[g]` and each submission taking `submit`; `sharing`:
  // a group's parts share DRAM while both run (false: the monotone replay, for bounds). `from`:
  // resume a replay of the same costs before() stopped (a solver trying one group's candidates
  // replays what precedes its first instance once: lm_head's 500 candidates follow every layer).
  Tick time(const std::vector<GroupCost>& groups, Tick submit, bool sharing = true) const;
  Tick time(const std::vector<GroupCost>& groups, Tick submit, bool sharing, const Replay& from) const;
  // The replay up to the first instance of `group` (the end if there is none), whose cost it
  // does not read.
  Replay before(std::uint32_t group, const std::vector<GroupCost>& groups, Tick submit, bool sharing = true) const;
  bool empty() const { return items_.empty(); }
  // A model's identical layers repeat the same items: where a replay stands at the same place in
  // two consecutive blocks of them (the queue's and the NPU's lead over the host alike), the
  // replay is periodic from there (every step is a max or a sum of its times, and share_dram is
  // computed relative to its parts' starts), so the blocks left are skipped, each adding the
  // host's advance over the last: the same Tick as replaying them (short of a Tick past 64 bits,
  // where both wrap). On by default; off, for tests. Not thread-safe (the search is cached).
  void set_repeat_shortcut(bool on) { shortcut_ = on; }
  // Items the replays have skipped so far (the shortcut's use, for tests).
  std::uint64_t items_skipped() const { return skipped_; }

 private:
  enum class Kind : std::uint8_t { kKernel, kGroup, kHostWait };
  struct Item {
    Kind kind;
    std::uint64_t value;  // kKernel: queue time; kGroup: group index
  };
  void advance(const Item& item, Replay& r, const std::vector<GroupCost>& groups, Tick submit, bool sharing) const;
  // Finds the longest stretch of repeated blocks (the fewest items a block on ties), once the
  // items are all added (the first time() after an add).
  void find_repeats() const;
  std::vector<Item> items_;
  double shared_ = 0;
  bool shortcut_ = true;
  mutable bool analysed_ = false;
  mutable std::uint64_t skipped_ = 0;
  mutable std::size_t repeat_begin_ = 0, period_ = 0, blocks_ = 0;  // blocks_ of period_ items from repeat_begin_
};

}  // namespace socsim::systems::heterollm
