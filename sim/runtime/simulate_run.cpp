#include "sim/runtime/simulate_run.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/hw/power/energy_model.h"
#include "sim/hw/soc.h"
#include "sim/runtime/executor.h"

namespace socsim::runtime {

namespace {

// Bytes moved through DRAM between two times, from the bandwidth timeline (piecewise constant).
double dram_bytes_between(const hw::DramModel& dram, Tick from, Tick to) {
  double bytes = 0;
  const auto& tl = dram.timeline();
  for (std::size_t i = 0; i < tl.size(); ++i) {
    const Tick a = std::max(tl[i].time, from);
    const Tick b = std::min(i + 1 < tl.size() ? tl[i + 1].time : to, to);
    if (b > a) bytes += tl[i].total_bps * to_seconds(b - a);
  }
  return bytes;
}

std::string stall_report(Simulator& sim) {
  std::string s = "the simulation stalled with work pending (a dependency that can never be met); waiting:";
  for (const auto& p : sim.blocked_processes()) s += " " + p;
  return s;
}

}  // namespace

report::RunReport simulate_run(const RunRequest& req, systems::System& system, report::TraceRecorder& trace) {
  Simulator sim;
  hw::Soc soc(sim, req.soc, &trace);
  soc.dram().record_timeline(true);
  const systems::RequestShape shape{req.prompt_tokens, req.decode_tokens, req.batch};
  const Plan plan = system.plan(req.soc, req.model, shape);
  Executor ex(soc, req.model, system.sync_policy(), &trace);
  sim.spawn(ex.run(plan), "executor");
  if (sim.run() != RunResult::kIdle) throw std::runtime_error(stall_report(sim));
  if (plan.decode_step_end.size() != req.decode_tokens) {
    throw std::logic_error("system '" + system.id() + "' planned " + std::to_string(plan.decode_step_end.size()) +
                           " decode steps for " + std::to_string(req.decode_tokens) + " tokens");
  }
  const Tick end = sim.now();
  const Tick ttft = ex.job_end(plan.prefill_end);
  const Tick decode_end = plan.decode_step_end.empty() ? ttft : ex.job_end(plan.decode_step_end.back());

  report::RunReport r;
  r.soc = req.soc_id;
  r.model = req.model.id;
  r.system = req.system;
  r.mode = mode_name(req.mode);
  r.prompt_tokens = req.prompt_tokens;
  r.decode_tokens = req.decode_tokens;
  r.batch = req.batch;
  r.seed = req.seed;
  r.ttft_ms = to_ms(ttft);
  r.prefill_ms = to_ms(ttft);
  r.prefill_tokens_per_s = static_cast<double>(req.prompt_tokens * req.batch) / to_seconds(ttft);
  if (req.decode_tokens > 0) {
    const Tick decode = decode_end - ttft;
    r.decode_ms_per_token = to_ms(decode) / static_cast<double>(req.decode_tokens);
    r.decode_tokens_per_s = static_cast<double>(req.decode_tokens * req.batch) / to_seconds(decode);
    r.extra["decode_dram_gbps"] = dram_bytes_between(soc.dram(), ttft, decode_end) / to_seconds(decode) / 1e9;
  }
  r.total_ms = to_ms(end);
  r.simulated_ms = to_ms(end);

  hw::Activity act;
  act.duration = end;
  act.npu.busy = soc.npu().busy().busy(end);
  act.gpu.busy = soc.gpu().busy().busy(end);
  act.cpu_core_busy = soc.cpu().core_busy_by_cluster();
  act.cpu_cores = soc.cpu().cores_by_cluster();
  act.dram_bytes = soc.dram().total_bytes();
  act.storage_read_bytes = soc.storage().bytes_read();
  act.storage_write_bytes = soc.storage().bytes_written();
  const hw::EnergyBreakdown e = hw::compute_energy(req.soc.power, act);
  r.energy_j = e.total_j;

  Tick cpu_wall = 0;
  for (const auto& c : req.soc.cpu.clusters) cpu_wall = std::max(cpu_wall, soc.cpu().wall_busy(c.name));
  r.units.push_back({"npu", to_ms(act.npu.busy), e.npu_j});
  r.units.push_back({"gpu", to_ms(act.gpu.busy), e.gpu_j});
  r.units.push_back({"cpu", to_ms(cpu_wall), e.cpu_j});
  r.units.push_back({"dram", to_ms(soc.dram().busy().busy(end)), e.dram_j});
  r.units.push_back({"storage", to_ms(soc.storage().busy().busy(end)), e.storage_j});
  r.dram_bytes = static_cast<double>(soc.dram().total_bytes());
  r.dram_avg_gbps = end == 0 ? 0 : r.dram_bytes / to_seconds(end) / 1e9;
  r.dram_peak_gbps = soc.dram().bandwidth().max() / 1e9;
  for (const auto& s : soc.dram().timeline()) trace.counter("dram.bandwidth_gbps", s.time, s.total_bps / 1e9);

  r.extra["average_power_w"] = e.average_power_w;
  r.extra["energy_breakdown_j"] = {{"npu", e.npu_j}, {"gpu", e.gpu_j}, {"cpu", e.cpu_j}, {"dram", e.dram_j},
                                   {"storage", e.storage_j}, {"soc_base", e.base_j}};
  nlohmann::ordered_json by_type = nlohmann::ordered_json::object();
  for (const auto& [key, t] : ex.op_time()) by_type[key.unit][key.kind] = to_ms(t);
  r.extra["op_time_ms"] = by_type;
  r.extra["npu_graphs_built"] = ex.graphs_built();
  r.extra["jobs"] = plan.jobs.size();
  return r;
}

}  // namespace socsim::runtime
