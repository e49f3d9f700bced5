#pragma once
// A small synthetic CPU for the CPU model tests, with round numbers so every expected time can be
// computed by hand:
//   prime: 1 core  @ 2 GHz, fp32 16 / fp16 32 / int8 64 ops per cycle, 10 GB/s per core
//   mid:   4 cores @ 1 GHz, fp32  8 / fp16 16 / int8 32 ops per cycle,  5 GB/s per core
//   CPU port 40 GB/s, DRAM peak 68 GB/s, GEMM row block 64, no dispatch cost,
//   usleep granularity 90 us, poll interval 1 us.
#include <memory>

#include "sim/core/simulator.h"
#include "sim/hw/cpu/cpu_complex.h"
#include "sim/hw/memory/dram_model.h"
#include "sim/report/trace.h"

namespace socsim::hw::testing {

constexpr double kGB = 1e9;

inline CpuSpec small_cpu_spec() {
  CpuSpec s;
  s.clusters.push_back({"prime", 1, 2'000'000'000, 16, 32, 64, 10 * kGB});
  s.clusters.push_back({"mid", 4, 1'000'000'000, 8, 16, 32, 5 * kGB});
  s.sleep_granularity = 90 * kMicrosecond;
  s.poll_interval = 1 * kMicrosecond;
  s.port_bandwidth = 40 * kGB;
  s.gemm_tile_rows = 64;
  s.task_dispatch = 0;
  return s;
}

// Simulator, DRAM with a "cpu" port at the spec's port cap, trace and CPU, declared in the
// order a real run uses (so destruction order is exercised too).
struct CpuBench {
  explicit CpuBench(const CpuSpec& spec = small_cpu_spec())
      : dram(sim, 68 * kGB),
        cpu_port(dram.add_port("cpu", spec.port_bandwidth)),
        cpu(sim, spec, dram, cpu_port, &trace) {}
  Simulator sim;
  DramModel dram;
  PortId cpu_port;
  report::TraceRecorder trace;
  CpuComplex cpu;
};

// Runs `task` to completion and records when it finished.
inline Task<> timed(Simulator& sim, Task<> task, Tick& end) {
  co_await task;
  end = sim.now();
}

}  // namespace socsim::hw::testing
