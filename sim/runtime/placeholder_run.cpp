#include "sim/runtime/placeholder_run.h"

#include <fmt/format.h>

#include "sim/core/simulator.h"
#include "sim/hw/memory/dram_model.h"

namespace socsim::runtime {

namespace {

// Weights stay INT8 in this stand-in: the real runtime chooses precision per system.
constexpr double kBitsPerWeight = 8.0;

Task<> stream_passes(Simulator& sim, hw::DramModel& dram, hw::PortId port, std::uint64_t layer_bytes,
                     std::uint64_t layers, std::uint64_t passes, report::TraceRecorder& trace) {
  for (std::uint64_t p = 0; p < passes; ++p) {
    const Tick start = sim.now();
    for (std::uint64_t l = 0; l < layers; ++l) co_await dram.transfer(port, layer_bytes);
    trace.span("cpu", p == 0 ? "prompt weight pass" : fmt::format("decode pass {}", p), start, sim.now());
  }
}

}  // namespace

report::RunReport run_placeholder(const RunRequest& req, report::TraceRecorder& trace) {
  Simulator sim;
  hw::DramModel dram(sim, req.soc.dram.peak_bandwidth, req.soc.dram.concurrency_efficiency);
  const hw::PortId cpu = dram.add_port("cpu", req.soc.cpu.port_bandwidth);
  dram.record_timeline(true);

  const auto layer_bytes = static_cast<std::uint64_t>(static_cast<double>(req.model.params_per_layer()) * kBitsPerWeight / 8.0);
  const std::uint64_t passes = 1 + req.decode_tokens;
  sim.spawn(stream_passes(sim, dram, cpu, layer_bytes, req.model.layers, passes, trace), "placeholder.cpu");
  const RunResult result = sim.run();
  if (result != RunResult::kIdle) throw std::logic_error("placeholder run did not finish");

  for (const auto& s : dram.timeline()) trace.counter("dram.bandwidth_gbps", s.time, s.total_bps / 1e9);

  report::RunReport r;
  r.model = req.model.id;
  r.system = req.system;
  r.mode = mode_name(req.mode);
  r.prompt_tokens = req.prompt_tokens;
  r.decode_tokens = req.decode_tokens;
  r.batch = req.batch;
  r.seed = req.seed;
  r.soc = req.soc_id;
  r.simulated_ms = to_ms(sim.now());
  r.dram_bytes = static_cast<double>(dram.total_bytes());
  r.dram_avg_gbps = sim.now() == 0 ? 0.0 : r.dram_bytes / to_seconds(sim.now()) / 1e9;
  r.dram_peak_gbps = dram.bandwidth().max() / 1e9;
  r.units.push_back({"dram", to_ms(dram.busy().busy(sim.now())), std::nullopt});
  r.notes.push_back(fmt::format(
      "foundation placeholder: {} INT8 weight passes ({} per layer x {} layers) streamed from the CPU port; "
      "operator timing, latency and energy arrive with the runtime (roadmap step 4)",
      passes, layer_bytes, req.model.layers));
  return r;
}

}  // namespace socsim::runtime
