#include "sim/runtime/npu_alone_replay.h"

#include <bit>
#include <cstdint>

#include "sim/core/simulator.h"
#include "sim/hw/memory/dram_model.h"
#include "sim/runtime/work_runner.h"

namespace socsim::runtime {

namespace {

// Two independent 64-bit lanes (splitmix64 finalizer over the running state): 128 bits make an
// accidental match of two different works vanishingly unlikely (about 2^-128 per pair).
struct Signature {
  std::uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull;
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  void add(std::uint64_t v) {
    a = mix(a ^ v) + 0x9e3779b97f4a7c15ull;
    b = mix(b + v * 0xff51afd7ed558ccdull) ^ 0xc4ceb9fe1a85ec53ull;
  }
  void add(double v) { add(std::bit_cast<std::uint64_t>(v)); }
};

// The run alone, event by event, on a scratch NPU and DRAM of the same description.
hw::NpuRunRecord record_alone(hw::HexagonNpu& npu, const kernels::NpuWork& work) {
  Simulator sim;
  hw::DramModel dram(sim, npu.dram().peak_bytes_per_s(), npu.dram().concurrency_efficiency());
  hw::HexagonNpu scratch(sim, npu.spec(), dram, nullptr);
  scratch.set_replay_alone_runs(false);
  scratch.share_plans_with(npu);
  sim.spawn(run_npu_work(scratch, work), "npu.record");
  sim.run();
  return scratch.record(sim.now());
}

}  // namespace

hw::NpuRunMemo::Key npu_work_signature(const kernels::NpuWork& work) {
  Signature s;
  s.add(static_cast<std::uint64_t>(work.steps.size()));
  for (const auto& st : work.steps) {
    s.add(static_cast<std::uint64_t>(st.kind));
    s.add(static_cast<std::uint64_t>(st.graph_ops));
    s.add(st.gemm.m), s.add(st.gemm.k), s.add(st.gemm.n), s.add(st.gemm.width);
    s.add(static_cast<std::uint64_t>(st.gemm.dtype)), s.add(static_cast<std::uint64_t>(st.gemm.out_bytes));
    s.add(static_cast<std::uint64_t>(st.home));
    s.add(st.hmx_cycles);
    s.add(st.packets);
    s.add(static_cast<std::uint64_t>(st.threads));
    s.add(st.bytes), s.add(st.transfers);
    s.add((static_cast<std::uint64_t>(st.stage) << 32) | st.iteration);
  }
  s.add(static_cast<std::uint64_t>(work.stages.size()));
  for (const auto& stage : work.stages) s.add(static_cast<std::uint64_t>(stage.buffers));
  return {s.a, s.b};
}

const hw::NpuRunRecord* alone_replay(hw::HexagonNpu& npu, const kernels::NpuWork& work, const hw::NpuRunMemo::Key* signature) {
  if (!npu.replay_alone_runs() || npu.tracing() || npu.dram().recording_timeline() || !npu.alone()) return nullptr;
  Simulator& sim = npu.sim();
  // Something due now or soon may start beside the work; checked before the signature is taken.
  if (sim.next_event_time() == sim.now()) return nullptr;
  auto& memo = npu.run_memo();
  const auto key = signature ? *signature : npu_work_signature(work);
  const hw::NpuRunRecord* rec = memo.find(key);
  if (!rec) {
    if (!memo.seen_before(key)) return nullptr;
    rec = &memo.store(key, record_alone(npu, work));
  }
  const Tick next = sim.next_event_time();
  if (next != kTickMax && next <= sim.checked_add(sim.now(), rec->duration)) return nullptr;
  return rec;
}

}  // namespace socsim::runtime
