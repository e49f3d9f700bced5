#pragma once
// Helpers shared by the DRAM model tests: record when a flow finishes, in which order.
#include <cstdint>
#include <vector>

#include "sim/core/simulator.h"
#include "sim/hw/memory/dram_model.h"

namespace socsim::hw::testing {

constexpr double GB = 1e9;  // bytes/s per GB/s

// A flow's completion record; its address is the callback context, so keep it stable
// (e.g. in a std::deque or a fixed-size std::vector).
struct Done {
  Simulator* sim = nullptr;
  std::vector<int>* order = nullptr;  // optional: appends `id` on completion
  int id = 0;
  Tick at = kTickMax;
  static void fn(void* p) {
    auto* d = static_cast<Done*>(p);
    d->at = d->sim->now();
    if (d->order) d->order->push_back(d->id);
  }
};

// Starts a flow of `bytes` on `port` at time `t` (callback form) that records into `done`.
inline void flow_at(Simulator& sim, DramModel& dram, Tick t, PortId port, std::uint64_t bytes, Done& done) {
  done.sim = &sim;
  sim.call_at(t, [&dram, port, bytes, &done] { dram.start_flow(port, bytes, &Done::fn, &done); });
}

}  // namespace socsim::hw::testing
