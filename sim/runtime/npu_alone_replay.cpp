#include "sim/runtime/npu_alone_replay.h"

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <tuple>

#include "sim/core/simulator.h"
#include "sim/hw/memory/dram_model.h"
#include "sim/runtime/work_runner.h"

namespace socsim::runtime {

namespace {

// The run alone, event by event, on a scratch NPU and DRAM of the same description.
hw::NpuRunRecord record_alone(hw::HexagonNpu& npu, const RecordRun& run) {
  Simulator sim;
  hw::DramModel dram(sim, npu.dram().peak_bytes_per_s(), npu.dram().concurrency_efficiency());
  hw::HexagonNpu scratch(sim, npu.spec(), dram, nullptr);
  scratch.set_replay_alone_runs(false);
  scratch.share_plans_with(npu);
  std::vector<Tick> node_time;
  Tick end = 0;
  sim.spawn(run_and_note_end(sim, run(scratch, node_time), end), "npu.record");
  // The work ran to its end once already (it is recorded the second time it is met), so it ends here.
  if (sim.run() != RunResult::kIdle || sim.live_processes() != 0) throw std::logic_error("npu: a recorded run did not end");
  hw::NpuRunRecord r = scratch.record(end);
  r.node_time = std::move(node_time);
  r.events = sim.events_fired() - 1;
  return r;
}

}  // namespace

hw::NpuRunMemo::Key npu_work_signature(const kernels::NpuWork& work) {
  SignatureBuilder s;
  s.add(static_cast<std::uint64_t>(work.steps.size()));
  for (const auto& st : work.steps) {
    s.add(static_cast<std::uint64_t>(st.kind));
    s.add(static_cast<std::uint64_t>(st.graph_ops));
    std::apply([&](auto... f) { (s.add(static_cast<std::uint64_t>(f)), ...); }, st.gemm.key());  // every GemmShape field
    s.add(static_cast<std::uint64_t>(st.home));
    s.add(st.hmx_cycles);
    s.add(st.packets);
    s.add(static_cast<std::uint64_t>(st.threads));
    s.add(st.bytes), s.add(st.transfers);
    s.add((static_cast<std::uint64_t>(st.stage) << 32) | st.iteration);
  }
  s.add(static_cast<std::uint64_t>(work.stages.size()));
  for (const auto& stage : work.stages) s.add(static_cast<std::uint64_t>(stage.buffers));
  return s.key();
}

bool may_replay(hw::HexagonNpu& npu) {
  if (!npu.replay_alone_runs() || npu.tracing() || npu.dram().recording_timeline() || !npu.alone()) return false;
  // Something due now may start beside the work.
  return npu.sim().next_event_time() != npu.sim().now();
}

hw::NpuRunMemo::Shared alone_replay(hw::HexagonNpu& npu, const hw::NpuRunMemo::Key& key, const RecordRun& record) {
  return npu.run_memo().replayable(key, npu.sim(), [&] { return record_alone(npu, record); });
}

hw::NpuRunMemo::Shared alone_replay(hw::HexagonNpu& npu, const kernels::NpuWork& work, const hw::NpuRunMemo::Key* signature) {
  if (!may_replay(npu)) return nullptr;
  const auto key = signature ? *signature : npu_work_signature(work);
  return alone_replay(npu, key, [&work](hw::HexagonNpu& scratch, std::vector<Tick>&) { return run_npu_work(scratch, work); });
}

Task<> replay(hw::HexagonNpu& npu, hw::NpuRunMemo::Shared rec) {
  const Tick start = npu.sim().now();
  co_await npu.sim().delay(rec->duration);
  npu.absorb(*rec, start);
  npu.run_memo().count_replay();
  npu.sim().note_replay(rec->events);
}

}  // namespace socsim::runtime
