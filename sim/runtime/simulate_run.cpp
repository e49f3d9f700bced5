#include "sim/runtime/simulate_run.h"
#include "sim/core/counted.h"
#include "sim/runtime/plan_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <optional>

#include "sim/config/config_error.h"
#include "sim/core/host_memory.h"
#include "sim/core/run_progress.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/hw/power/energy_model.h"
#include "sim/hw/soc.h"
#include "sim/runtime/executor.h"
#include "sim/runtime/host_memory_estimate.h"
#include "sim/runtime/watchdog_report.h"
#include "sim/systems/memory_fit.h"

namespace socsim::runtime {

namespace {

// What one request of a run did, in simulated time.
struct RequestTimes {
  Request lengths;
  Tick start = 0, first_token = 0, end = 0;
  Tick prefill_npu_busy = 0;  // NPU jobs of the prefill, start to end (the NPU runs one at a time)
  // Jobs of the attention module (Plan::report_attention): unit, CPU cluster and cores, span.
  struct Span {
    kernels::Unit unit;
    std::string cluster;
    std::uint32_t threads;
    Tick start, end;
    Tick npu_engine_busy = 0;  // NPU jobs: engine-active time within the span
    Tick cpu_stalled = 0;      // CPU jobs: core-time their cores waited on DRAM
    std::uint64_t own_dram_bytes = 0;  // the job's own traffic (Executor::job_own_dram_bytes)
  };
  bool report_attention = false;
  std::vector<Span> attention;
  std::uint64_t decode_dram_bytes = 0;  // all masters' DRAM traffic from the first token to the last
  // Rows the decode sampled when the batch shrank as samples stopped (Plan::decode_rows); none:
  // lengths.decode x lengths.batch.
  std::optional<std::uint64_t> decode_rows;
  std::uint64_t sampled_rows() const { return decode_rows.value_or(lengths.decode * lengths.batch); }
};

// A span of simulated time.
struct Interval {
  Tick start = 0, end = 0;
};

// Union of intervals (sorted, merged).
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.start < y.start; });
  std::vector<Interval> out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.start <= out.back().end) {
      out.back().end = std::max(out.back().end, iv.end);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const std::size_t i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

// The co-running render load: a frame every period, on the GPU's queue; a frame misses when it
// completes after the next frame's release.
struct Background {
  Tick period = 0;
  hw::GpuKernel frame;
  bool stop = false;
  std::uint64_t frames = 0, missed = 0;
  Tick worst = 0;  // longest release-to-completion
};

Task<> frame_done(Simulator& sim, hw::AdrenoGpu& gpu, std::uint64_t mark, Tick release, Background& b) {
  co_await gpu.wait_completed(mark);
  ++b.frames;
  b.worst = std::max(b.worst, sim.now() - release);
  if (sim.now() > release + b.period) ++b.missed;
}

Task<> render(Simulator& sim, hw::AdrenoGpu& gpu, Background& b) {
  Tick release = sim.now();
  while (!b.stop) {
    co_await gpu.enqueue(b.frame);
    sim.spawn(frame_done(sim, gpu, gpu.enqueued(), release, b), "frame");
    release += b.period;
    if (release > sim.now()) co_await sim.delay_until(release);
  }
}

// A plan the executor can run here: no NPU work on a SoC without one, the decode steps asked for.
void check_plan(const Plan& plan, std::uint64_t decode, const systems::System& system, const RunRequest& req) {
  for (const auto& job : plan.jobs) {
    if (job.unit == kernels::Unit::kNpu && !req.soc.has_npu) {
      throw config::ConfigError({req.soc.source_file, 0, 0}, "npu",
                                "system '" + system.id() + "' places work on the NPU and this SoC has none (no `npu:` section)");
    }
  }
  if (plan.decode_step_end.size() != decode) {
    throw std::logic_error("system '" + system.id() + "' planned " + std::to_string(plan.decode_step_end.size()) +
                           " decode steps for " + std::to_string(decode) + " tokens");
  }
}

// Plans and runs each request after the previous one; a plan lives in this coroutine's frame
// while the executor runs it.
Task<> run_requests(Simulator& sim, Executor& ex, systems::System& system, const RunRequest& req,
                    const std::vector<Request>& requests, std::vector<RequestTimes>& times, std::size_t& jobs,
                    nlohmann::ordered_json& info, Background* background, report::TraceRecorder& trace) {
  // What was measured offline (llm.npu's layer importance) holds for every request, not only the
  // one functional mode computed.
  DataDriven offline;
  offline.layer_importance = req.data_driven.layer_importance;
  for (const Request& q : requests) {
    progress_requests(times.size(), requests.size());
    // Functional mode computed the first request: its data-driven quantities replace the modelled
    // ones, through the system's planning (System::use_data).
    const bool measured = &q == &requests.front() && !req.data_driven.empty();
    // A long decode of a system that plans decode windows runs window by window: each window's
    // plan is dropped when it has run, so host memory does not grow with the decode (issue #21).
    // Decode steps wait for the previous step's token, so the windows time exactly as one plan.
    const std::uint64_t window = req.decode_window;
    const bool windowed = system.decode_windows() && !measured && window > 0 && q.decode > window;
    const std::uint64_t first_count = windowed ? window : q.decode;
    RequestTimes t{q, sim.now(), 0, 0, 0, false, {}, 0, std::nullopt};
    std::uint64_t first_token_bytes = 0, end_bytes = 0;
    std::optional<Job> previous_last;  // the last job of the window that ran before
    // What a plan of the request tells once it has run.
    const auto collect = [&](const Plan& plan) {
      record_plan_trace(plan, ex, trace);
      if (!plan.decode_step_end.empty()) {
        t.end = ex.job_end(plan.decode_step_end.back());
        end_bytes = ex.job_dram_bytes_at_end(plan.decode_step_end.back());
      }
      if (plan.report_attention && ex.npu_jobs_overlapped()) {
        // Every system that reports its attention module runs its NPU jobs on one lane.
        throw std::logic_error("attention energy: two NPU jobs ran at once, so their own DRAM traffic is not told apart");
      }
      if (plan.report_attention) {
        // Reserved whole: grown by doubling, a plan of 141k attention jobs left 16 MB spare.
        std::size_t attention = 0;
        for (const auto& job : plan.jobs) attention += job.attention_module ? 1 : 0;
        // (Later windows of a long decode still grow it geometrically: no copy per window.)
        const std::size_t need = t.attention.size() + attention;
        if (need > t.attention.capacity()) t.attention.reserve(std::max(need, 2 * t.attention.capacity()));
      }
      for (std::uint32_t j = 0; j < plan.jobs.size(); ++j) {
        const auto& job = plan.jobs[j];
        if (job.unit == kernels::Unit::kNpu && !job.ops.empty() && job.ops.front().phase == model::Phase::kPrefill) {
          t.prefill_npu_busy += ex.job_end(j) - ex.job_start(j);
        }
        if (plan.report_attention && job.attention_module) {
          t.attention.push_back({job.unit, job.cpu_cluster, job.cpu_threads, ex.job_start(j), ex.job_end(j), ex.job_npu_engine_busy(j),
                                 ex.job_cpu_stalled(j), ex.job_own_dram_bytes(j)});
        }
      }
      jobs += plan.jobs.size();
    };
    {
      Plan plan = system.plan_with(measured ? &req.data_driven : offline.empty() ? nullptr : &offline, req.soc, req.model,
                                   {q.prompt, first_count, q.batch, 0, false, q.decode});
      // Measured sample lengths: the decode runs until the longest sample stops (at most q.decode).
      const bool stopped = measured && !req.data_driven.decode_steps.empty();
      const std::uint64_t steps = stopped ? req.data_driven.active_per_step().size() : first_count;
      check_plan(plan, steps, system, req);
      if (stopped) {
        if (!plan.decode_rows || steps > q.decode || *plan.decode_rows > steps * q.batch) {
          throw std::logic_error("system '" + system.id() + "' did not plan the measured sample lengths within the request's decode");
        }
        t.lengths.decode = steps;
        t.decode_rows = plan.decode_rows;
      }
      // A plan that grew by doubling has up to half its job array spare while the executor adds
      // its own state per job (shadowAttn at batch 16 once: 166k jobs, 26 MB spare). Shrinking
      // moves every job into fresh pages, so only a plan with more than a quarter spare is shrunk
      // (plans that reserve their jobs are not: shadowAttn's 13k jobs, a tenth of its page faults).
      if (plan.jobs.capacity() - plan.jobs.size() > plan.jobs.size() / 4) plan.jobs.shrink_to_fit();
      co_await ex.run(plan);
      t.first_token = ex.job_end(plan.prefill_end);
      t.end = t.first_token;
      first_token_bytes = end_bytes = ex.job_dram_bytes_at_end(plan.prefill_end);
      collect(plan);
      t.report_attention = plan.report_attention;
      info = plan.info;
      if (windowed) previous_last = plan.jobs[plan.decode_step_end.back()];  // windowed: >= 1 step planned
    }
    for (std::uint64_t first = first_count; first < q.decode; first += window) {
      const std::uint64_t count = std::min(window, q.decode - first);
      const Plan plan = system.plan(req.soc, req.model, {q.prompt, count, q.batch, first, true, q.decode});
      check_plan(plan, count, system, req);
      // The window's first jobs continue after the previous window's last (its sampled token):
      // the same hand-over as within one plan.
      ex.continue_after(previous_last);
      co_await ex.run(plan);
      collect(plan);
      previous_last = plan.jobs[plan.decode_step_end.back()];
    }
    ex.continue_after(std::nullopt);
    t.decode_dram_bytes = end_bytes - first_token_bytes;
    times.push_back(t);
  }
  if (background) background->stop = true;
}

report::RunReport simulate_run_unlocated(const RunRequest& req, systems::System& system, report::TraceRecorder& trace) {
  const std::vector<Request> requests =
      req.workload.empty() ? std::vector<Request>{{req.prompt_tokens, req.decode_tokens, req.batch}} : req.workload;
  // Bad input before anything runs: the longest request's KV cache and the weights must fit.
  for (const auto& r : requests) {
    systems::check_fits_device_memory(req.soc, req.model, req.system, system.weight_bits(), r.prompt + r.decode, r.batch);
  }
  check_estimated_host_memory(system, req, requests);
  Simulator sim;
  hw::Soc soc(sim, req.soc, &trace);
  // The bandwidth timeline is for the trace only (the report's figures come from byte counters).
  soc.dram().record_timeline(trace.on());
  if (req.soc.has_npu) soc.npu().set_replay_alone_runs(req.replay_alone_runs);
  soc.cpu().set_replay_alone_runs(req.replay_alone_runs);
  // One lowering cache for the run's executor and the system's planning (JobProfiler): an op a
  // planner profiles is lowered once, not again when the run executes it (shadowAttn's and
  // llm.npu's annotated plans profile every NPU graph job; a long matmul's lowering searches GEMM
  // layouts). Planning happens between plans, when no job holds a lowered work.
  lowering::LoweringCache lowering(req.model, req.soc.npu);
  Executor ex(soc, req.model, system.sync_policy(), &trace, &lowering);
  struct LoweringShare {
    systems::System& system;
    ~LoweringShare() { system.share_lowering(nullptr); }  // the cache ends with this run
  } share{system};
  system.share_lowering(&lowering);
  std::vector<RequestTimes> times;
  std::size_t jobs = 0;
  nlohmann::ordered_json info = nlohmann::ordered_json::object();
  Background background;
  if (req.gpu_background_frame > 0) {
    background.period = seconds_to_ticks_ceil(1.0 / req.gpu_background_fps);
    background.frame.name = "render frame";
    background.frame.streaming = true;
    // Arithmetic that takes the frame's GPU time on an idle GPU.
    background.frame.flops = 1e9;
    background.frame.flops *= static_cast<double>(req.gpu_background_frame) / static_cast<double>(soc.gpu().compute_time(background.frame));
    sim.spawn(render(sim, soc.gpu(), background), "render");
  }
  sim.spawn(run_requests(sim, ex, system, req, requests, times, jobs, info, req.gpu_background_frame > 0 ? &background : nullptr, trace),
            "executor");
  const ScopedHostMemoryLimit memory_limit(req.max_host_memory);
  RunResult finished;
  try {
    // At once too, not only as the plan and the events grow: a process already past the limit
    // (a sweep's other runs in flight) does not start another simulation.
    check_host_memory();
    finished = sim.run();
  } catch (const HostMemoryExceeded& e) {
    std::string where;
    if (!times.empty() || requests.size() > 1) where = " after " + std::to_string(times.size()) + " of " + counted(requests.size(), "request");
    throw config::ConfigError({"command line", 0, 0}, "--max-host-memory",
                              std::string(e.what()) +
                                  (sim.events_fired() <= 1 ? std::string(" while planning the run")
                                                           : " after " + std::to_string(sim.events_fired()) + " events (simulated t = " +
                                                                 fmt::format("{:.3f}", static_cast<double>(sim.now()) / 1e9) + " ms)") +
                                  where + ": socsim keeps work per simulated token (a long prompt's kernels, a long decode's steps), so a long run " +
                                  "needs memory in proportion; shorten the run or raise --max-host-memory (default: half the machine's memory)");
  }
  check_run_finished(finished, sim, soc, &ex);
  // With a render load the timeline runs on to the last frame in flight (prefill and decode
  // figures come from the requests' own times).
  const Tick end = sim.now();

  // Totals over the requests: prefill from each start to its first token, decode from there to
  // its last token. One request gives the plain per-request figures.
  Tick prefill = 0, decode = 0, prefill_npu = 0;
  std::uint64_t prompt_tokens = 0, decode_tokens = 0, prompt_rows = 0, decode_rows = 0;
  double decode_bytes = 0;
  std::vector<double> ttfts;
  for (const auto& t : times) {
    prefill += t.first_token - t.start;
    prefill_npu += t.prefill_npu_busy;
    decode += t.end - t.first_token;
    prompt_tokens += t.lengths.prompt;
    decode_tokens += t.lengths.decode;
    prompt_rows += t.lengths.prompt * t.lengths.batch;
    decode_rows += t.sampled_rows();
    decode_bytes += static_cast<double>(t.decode_dram_bytes);
    ttfts.push_back(to_ms(t.first_token - t.start));
  }
  const double n = static_cast<double>(times.size());

  report::RunReport r;
  r.soc = req.soc_id;
  r.model = req.model.id;
  r.system = req.system;
  r.mode = mode_name(req.mode);
  r.prompt_tokens = prompt_tokens;
  r.decode_tokens = decode_tokens;
  r.batch = req.batch;
  r.seed = req.seed;
  r.ttft_ms = to_ms(prefill) / n;  // mean over the requests
  r.prefill_ms = to_ms(prefill) / n;
  r.prefill_tokens_per_s = static_cast<double>(prompt_rows) / to_seconds(prefill);
  if (decode_tokens > 0) {
    r.decode_ms_per_token = to_ms(decode) / static_cast<double>(decode_tokens);
    r.decode_tokens_per_s = static_cast<double>(decode_rows) / to_seconds(decode);
    r.extra["decode_dram_gbps"] = decode_bytes / to_seconds(decode) / 1e9;
  }
  // Samples that stopped early sampled fewer rows than decode steps x batch: what tokens/s counts.
  if (std::any_of(times.begin(), times.end(), [](const RequestTimes& t) { return t.decode_rows.has_value(); })) r.extra["decode_rows"] = decode_rows;
  r.total_ms = to_ms(end);
  r.simulated_ms = to_ms(end);

  hw::Activity act;
  act.duration = end;
  act.npu.busy = soc.spec().has_npu ? soc.npu().busy().busy(end) : 0;
  act.gpu.busy = soc.gpu().busy().busy(end);
  act.cpu_core_busy = soc.cpu().core_busy_by_cluster();
  act.cpu_core_stalled = soc.cpu().core_stalled_by_cluster();
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
  for (const auto& [key, t] : ex.op_time()) by_type[std::string(key.unit)][std::string(key.kind)] = to_ms(t);
  r.extra["op_time_ms"] = by_type;
  r.extra["npu_graphs_built"] = ex.graphs_built();
  r.extra["jobs"] = jobs;
  r.extra["events"] = sim.events_fired();
  r.extra["events_saved_by_replays"] = sim.events_saved_by_replays();
  if (prefill_npu > 0) {
    // NPU bubbles: prefill time the NPU had nothing to run (llm.npu's out-of-order execution
    // exists to shrink this).
    r.extra["prefill_npu_busy_ms"] = to_ms(prefill_npu);
    r.extra["prefill_npu_idle_ms"] = to_ms(prefill - std::min(prefill, prefill_npu));
  }
  if (!info.empty()) r.extra["system_info"] = info;
  if (!times.empty() && times.front().report_attention) {
    // The attention module alone: its wall time (the union of its jobs' spans, overlapped
    // pipeline stages counted once) and the energy of its own activity over that time: its NPU
    // jobs' engine-active time, its CPU jobs' busy time (stalled power for the core-time they
    // waited on DRAM) and its jobs' own DRAM traffic. Traffic of other work that ran beside it
    // (the host's NPU matmuls streaming weights under the CPU's attention) is that work's, not the
    // module's: shadowAttn measures one attention kernel on its own (Table 8).
    // attention_energy_j is the energy above idle: the run's energy minus what the same units
    // draw idle over the same time (base, DRAM background, idle cores and units), as a battery
    // reading taken during the kernel less the idle phone's reading gives it; shadowAttn's 5.29 J
    // for C/G-Full at 1024 tokens is a mid core's dynamic energy over the kernel, where a reading
    // that kept the phone's idle draw would hold watts of display and base power.
    // attention_energy_with_idle_j adds the idle draw back.
    std::vector<Interval> all;
    Tick npu_engines = 0;
    hw::Activity aa;
    // Per cluster: (time, +threads at a start / -threads at an end), for the most cores the
    // module held at once (top-k, sparse attention and the planner can run side by side).
    std::map<std::string, std::vector<std::pair<Tick, std::int64_t>>> core_steps;
    for (const auto& t : times) {
      for (const auto& sp : t.attention) {
        all.push_back({sp.start, sp.end});
        aa.dram_bytes += sp.own_dram_bytes;
        if (sp.unit == kernels::Unit::kNpu) npu_engines += sp.npu_engine_busy;
        if (sp.unit == kernels::Unit::kGpu) aa.gpu.busy += sp.end - sp.start;
        if (sp.unit == kernels::Unit::kCpu) {
          aa.cpu_core_busy[sp.cluster] += (sp.end - sp.start) * sp.threads;
          aa.cpu_core_stalled[sp.cluster] += sp.cpu_stalled;
          core_steps[sp.cluster].push_back({sp.start, static_cast<std::int64_t>(sp.threads)});
          core_steps[sp.cluster].push_back({sp.end, -static_cast<std::int64_t>(sp.threads)});
        }
      }
    }
    for (auto& [cluster, steps] : core_steps) {
      std::sort(steps.begin(), steps.end());  // at one time, ends (negative) before starts
      std::int64_t held = 0, peak = 0;
      for (const auto& [at, d] : steps) peak = std::max(peak, held += d);
      // A job's span includes its wait for a core (a planner job queued behind sparse attention
      // on a one-core cluster): never more cores than the cluster has.
      const auto cores = static_cast<std::int64_t>(req.soc.cpu.cluster(cluster).cores);
      aa.cpu_cores[cluster] = static_cast<std::uint32_t>(std::min(peak, cores));
    }
    aa.duration = 0;
    for (const auto& iv : merged(all)) aa.duration += iv.end - iv.start;
    // The NPU draws its active power while an engine runs (HMX, HVX, DMA), as the run's own NPU
    // energy counts it; a job's graph-call overhead and waits are the NPU idling.
    aa.npu.busy = std::min(aa.duration, npu_engines);
    aa.gpu.busy = std::min(aa.duration, aa.gpu.busy);
    // The budget's cores only (the cores the attention jobs held), not their whole clusters.
    for (auto& [cluster, busy] : aa.cpu_core_busy) {
      busy = std::min<Tick>(busy, aa.duration * aa.cpu_cores[cluster]);
      aa.cpu_core_stalled[cluster] = std::min(aa.cpu_core_stalled[cluster], busy);
    }
    hw::Activity idle;
    idle.duration = aa.duration;
    idle.cpu_cores = aa.cpu_cores;
    const double with_idle = hw::compute_energy(req.soc.power, aa).total_j;
    r.extra["attention_ms"] = to_ms(aa.duration) / n;
    r.extra["attention_energy_j"] = (with_idle - hw::compute_energy(req.soc.power, idle).total_j) / n;
    r.extra["attention_energy_with_idle_j"] = with_idle / n;
    r.extra["attention_dram_bytes"] = static_cast<double>(aa.dram_bytes) / n;
  }
  if (req.gpu_background_frame > 0) {
    r.extra["gpu_background"] = {{"frame_ms", to_ms(req.gpu_background_frame)},
                                 {"fps", req.gpu_background_fps},
                                 {"frames", background.frames},
                                 {"missed", background.missed},
                                 {"missed_fraction", background.frames ? static_cast<double>(background.missed) / static_cast<double>(background.frames) : 0.0},
                                 {"worst_frame_ms", to_ms(background.worst)}};
  }
  if (!req.workload.empty()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& t : times) {
      nlohmann::ordered_json q = {{"prompt", t.lengths.prompt}, {"decode", t.lengths.decode}, {"batch", t.lengths.batch},
                                  {"start_ms", to_ms(t.start)}, {"ttft_ms", to_ms(t.first_token - t.start)}};
      if (t.lengths.decode > 0) q["decode_ms_per_token"] = to_ms(t.end - t.first_token) / static_cast<double>(t.lengths.decode);
      if (t.decode_rows) q["decode_rows"] = *t.decode_rows;
      list.push_back(q);
    }
    r.extra["workload"] = {{"name", req.workload_name},
                           {"requests", times.size()},
                           {"ttft_ms", {{"mean", to_ms(prefill) / n}, {"p50", percentile(ttfts, 0.5)},
                                        {"p95", percentile(ttfts, 0.95)}, {"max", percentile(ttfts, 1.0)}}},
                           {"per_request", list}};
  }
  return r;
}

}  // namespace

report::RunReport simulate_run(const RunRequest& req, systems::System& system, report::TraceRecorder& trace) {
  try {
    return simulate_run_unlocated(req, system, trace);
  } catch (hw::HardwareLimitError& e) {
    hw::locate_limit(e, req.soc);  // the SoC file's line of the key (or --set), for the message
    throw;
  }
}

}  // namespace socsim::runtime
