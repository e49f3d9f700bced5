#pragma once
// Replaying NPU work that runs alone. Much of a decode is the same NPU work again and again (a
// layer's W4A16 matmuls at one shape, every layer, every step: TTS's software pipeline is a few
// thousand steps per matmul) on an NPU with nothing beside it. Such a run is a pure function of
// the work: it starts with every engine idle and no DRAM flow, and nothing else can start before
// it ends, so it takes the time and leaves the statistics it left the last time. The run is
// recorded once on a scratch NPU and DRAM of the same description (from time 0; timing is
// invariant under a shift in time) and replayed as one delay plus the recorded statistics.
//
// When a run is replayed (all checked when the work starts, so the answer never changes the
// timing): the NPU's engines and the whole DRAM are idle (HexagonNpu::alone()); no event is
// pending at or before the instant the run would end (events are the only way anything starts in
// the engine: every wake-up goes through the queue, so a process that could start meanwhile has
// an event pending, and one due at the very end could otherwise change the order of the end's
// events); nobody streams the work's outputs, no trace or DRAM timeline is recorded (those want
// every span); and the work was seen before (one-off work is not worth a recording).
// A replay fires one event instead of the run's thousands: results equal the event-by-event run's
// (tests/unit/runtime/npu_alone_replay_test.cpp compares whole runs) up to the rounding of
// time-weighted sums added in another order (below 1e-12 relative).
// A static graph's nodes run as a dataflow (graph_dataflow.h) are replayed the same way, as a whole.
#include <bit>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/lowering/work.h"
#include "sim/core/signature.h"
#include "sim/hw/npu/hexagon_npu.h"

namespace socsim::runtime {

// The work's signature: every field that its timing depends on (step names are left out: they
// only label trace spans, and a traced run is never replayed).
hw::NpuRunMemo::Key npu_work_signature(const kernels::NpuWork& work);

// Whether a run starting now on `npu` could be replayed at all (the checks that need no record).
bool may_replay(hw::HexagonNpu& npu);
// Runs the work of `key` on a scratch NPU, writing per-node times into the vector (graphs).
using RecordRun = std::function<Task<>(hw::HexagonNpu& scratch, std::vector<Tick>& node_time)>;
// The record to replay the run of `key` from now, or null when it must run event by event
// (above); `record` runs it on a scratch NPU when a recording is needed. Call after may_replay().
hw::NpuRunMemo::Shared alone_replay(hw::HexagonNpu& npu, const hw::NpuRunMemo::Key& key, const RecordRun& record);
// The same for one NpuWork. `signature`: the work's, if already taken (else taken here if needed).
hw::NpuRunMemo::Shared alone_replay(hw::HexagonNpu& npu, const kernels::NpuWork& work,
                                    const hw::NpuRunMemo::Key* signature = nullptr);
// Replays `rec` from now: its duration, then its statistics (the record held until then).
Task<> replay(hw::HexagonNpu& npu, hw::NpuRunMemo::Shared rec);

}  // namespace socsim::runtime
