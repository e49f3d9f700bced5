#include "sim/systems/llms/serve_run.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sim/core/counted.h"
#include "sim/config/config_error.h"
#include "sim/core/run_progress.h"
#include "sim/systems/llms/attention_density.h"
#include "sim/systems/llms/density_work.h"
#include "sim/systems/llms/load_planner.h"

namespace socsim::systems::llms {

double percentile(std::vector<double> values, double pct) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(pct / 100.0 * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

namespace {

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

void add_latency(nlohmann::ordered_json& j, const std::vector<double>& s) {
  j["mean_switch_ms"] = mean(s) * 1e3;
  j["p50_switch_ms"] = percentile(s, 50) * 1e3;
  j["p95_switch_ms"] = percentile(s, 95) * 1e3;
  j["p99_switch_ms"] = percentile(s, 99) * 1e3;
  j["max_switch_ms"] = s.empty() ? 0 : *std::max_element(s.begin(), s.end()) * 1e3;
}

}  // namespace

nlohmann::ordered_json serve_run(const ServeRequest& rq) {
  const auto& opt = rq.service.options;
  const std::uint64_t chunk_bytes = base_chunk_bytes(rq.service.policy, rq.model, opt.chunk_tokens);
  Options io_opt = opt;  // the policy's own storage layout
  io_opt.io_granularity = io_granularity_of(rq.service.policy, opt);

  auto trace_for = [&](std::uint32_t contexts) {
    TraceSpec t = rq.trace;
    t.contexts = contexts;
    return generate_trace(t, rq.datasets);
  };
  const auto calls = rq.replay ? *rq.replay : trace_for(rq.service.contexts);
  // The max-active-contexts search below runs the service once per context count.
  const std::uint32_t runs = rq.replay ? 1 : rq.service.contexts;
  const bool ranks_chunks = rq.service.policy == Policy::kLlms && opt.compression;
  const auto w = rq.replay ? density_work(calls, rq.model.max_context) : density_search_work(calls, rq.service.contexts, rq.model.max_context);
  spdlog::debug("serve: {:.3g} call simulations, {:.3g} window and {:.3g} held tokens summed over the calls: about {:.1f} s of timing work",
                w.calls, w.window_tokens, w.held_tokens, w.timing_seconds(ranks_chunks, opt.chunk_tokens));
  if (rq.service.density_source != DensitySource::kAttentionScores && w.timing_seconds(ranks_chunks, opt.chunk_tokens) > kMaxServeHostSeconds) {
    // Timing mode too: every call's reclaim scans the chunks all contexts hold, and LLMS re-ranks
    // the called context's chunks, so a year of calls over many long windows was days of work,
    // announced only as it ran (density_work.h).
    throw config::ConfigError(
        {"command line", 0, 0}, rq.replay ? "--trace" : "--contexts",
        fmt::format("this serves {:.3g} call simulations{}, each scanning the chunks all contexts hold{} (windows up to {} tokens in chunks "
                    "of {}; {:.3g} tokens held, summed over the calls): about {:.2f} h of work on a 2-core machine, more than a serve command "
                    "takes ({:.2f} h); {}",
                    w.calls, rq.replay || rq.service.contexts == 1 ? "" : " (once per context count: the max-active-contexts search)",
                    ranks_chunks ? " and re-ranking its own" : "", rq.model.max_context, opt.chunk_tokens, w.held_tokens,
                    w.timing_seconds(ranks_chunks, opt.chunk_tokens) / 3600, kMaxServeHostSeconds / 3600,
                    rq.replay ? "serve fewer of the trace's calls or set a smaller llms.max_context"
                              : "lower --contexts, --hours or --rate, or set a smaller llms.max_context"));
  }
  if (rq.service.density_source == DensitySource::kAttentionScores && ranks_chunks) {
    // Refused with its size before it starts: each call's densities cost its window (density_work.h).
    if (w.host_seconds(opt.chunk_tokens) > kMaxServeHostSeconds) {
      throw config::ConfigError(
          {"command line", 0, 0}, rq.replay ? "--trace" : "--contexts",
          fmt::format("functional mode's density decoder would attend over {:.3g} window tokens and run {:.3g} new tokens in {:.3g} call "
                      "simulations{} (each call's scored rows attend over its context's window, up to {} tokens): about {:.1f} h of work on "
                      "a 2-core machine, more than a serve command takes ({:.1f} h); {}",
                      w.window_tokens, w.new_tokens, w.calls, rq.replay || rq.service.contexts == 1 ? "" : " (once per context count: the max-active-contexts search)",
                      rq.model.max_context, w.host_seconds(opt.chunk_tokens) / 3600, kMaxServeHostSeconds / 3600,
                      rq.replay ? "serve fewer of the trace's calls or set a smaller llms.max_context"
                                : "lower --contexts, --hours or --rate, or set a smaller llms.max_context"));
    }
  }
  // The recompute cost is profiled to the longest context any of those runs' traces reaches: no
  // recompute covers more (after the checks above refuse what is too large; a short trace on a 128k window profiled the whole window).
  std::uint64_t longest = longest_context_tokens(calls, rq.model.max_context);
  for (std::uint32_t n = 1; n < runs; ++n) longest = std::max(longest, longest_context_tokens(trace_for(n), rq.model.max_context));
  const auto costs = profile_costs(rq.soc, rq.model, io_opt, chunk_bytes, kv_element_bytes(rq.service.policy), std::max<std::uint64_t>(longest, 1));
  auto run_with = [&](std::uint32_t contexts, const std::vector<Call>& calls) {
    ServiceConfig cfg = rq.service;
    cfg.contexts = contexts;
    return simulate_service(cfg, costs, calls);
  };
  progress_service_run(1, runs);
  const auto r = run_with(rq.service.contexts, calls);

  nlohmann::ordered_json j;
  j["soc"] = rq.soc_id;
  j["model"] = rq.model.id;
  j["policy"] = policy_name(rq.service.policy);
  j["pattern"] = rq.replay ? "trace" : pattern_name(rq.trace.pattern);
  if (rq.replay) j["trace_file"] = rq.trace_file;
  j["contexts"] = rq.service.contexts;
  const double hours = rq.replay ? (calls.empty() ? 0.0 : calls.back().time_s / 3600) : rq.trace.hours;
  j["hours"] = hours;
  // A replayed trace's own rate (its calls over its span), not the --rate it replaces.
  // (A replayed trace whose calls all come at time 0 has no rate: null, not 0.)
  j["calls_per_hour"] = rq.replay ? (hours > 0 ? nlohmann::ordered_json(static_cast<double>(calls.size()) / hours) : nlohmann::ordered_json())
                                  : nlohmann::ordered_json(rq.trace.calls_per_s * 3600);
  j["seed"] = rq.service.seed;
  const bool functional = rq.service.density_source == DensitySource::kAttentionScores;
  j["mode"] = functional ? "functional" : "timing";
  j["density_source"] = density_source_name(rq.service.density_source);
  // Densities only steer llms's compression: for the baselines (or compression off) neither
  // source is used, and functional mode runs no decoder.
  j["densities_used"] = rq.service.policy == Policy::kLlms && opt.compression;
  // As `run`'s report: which quantities of the timed service came from the computed data.
  if (functional) {
    j["data_driven"] = j["densities_used"].get<bool>()
                           ? nlohmann::ordered_json{{"quantities", "llms chunk densities"},
                                                    {"llms.densities", {{"source", "attention scores the service's decoder computes over each context, call by call"},
                                                                        {"timing_mode", "synthetic log-normal densities"}}}}
                           : nlohmann::ordered_json{{"quantities", "none"}, {"note", "this policy does not use densities"}};
  }
  j["memory_budget_bytes"] = rq.service.memory_budget;
  j["chunk_bytes"] = chunk_bytes;
  j["max_context_tokens"] = rq.model.max_context;
  j["calls"] = calls.size();
  // A call adding more tokens than the window keeps only its last max_context of them (the service
  // slides the window over them): said, not done in silence (a trace line `0 0 100000` on a
  // 4096-token model served 4096).
  std::uint64_t past_window = 0, widest = 0;
  for (const auto& c : calls) {
    if (c.delta_tokens > rq.model.max_context) ++past_window, widest = std::max<std::uint64_t>(widest, c.delta_tokens);
  }
  j["calls_past_window"] = past_window;
  if (past_window > 0) {
    spdlog::warn("{} of {} calls add more tokens than {}'s context window of {} (llms.max_context; up to {}): each keeps only its last {}",
                 past_window, calls.size(), rq.model.id, rq.model.max_context, widest, rq.model.max_context);
  }
  add_latency(j, r.switch_s);
  j["latency_bound_ms"] = rq.latency_bound_s * 1e3;

  // Maximum active contexts under the bound (generated traces: a trace per count, same seed).
  nlohmann::ordered_json by = nlohmann::ordered_json::array();
  if (!rq.replay) {
    std::uint32_t max_active = 0;
    bool within = true;
    for (std::uint32_t n = 1; n <= rq.service.contexts; ++n) {
      if (n != rq.service.contexts) progress_service_run(n + 1, runs);
      const auto rn = n == rq.service.contexts ? r : run_with(n, trace_for(n));
      nlohmann::ordered_json e;
      e["contexts"] = n;
      add_latency(e, rn.switch_s);
      by.push_back(e);
      within = within && mean(rn.switch_s) <= rq.latency_bound_s;
      if (within) max_active = n;
    }
    j["max_active_contexts"] = max_active;
  } else {
    j["max_active_contexts"] = nullptr;
  }
  j["storage_bytes_read"] = r.bytes_read;
  j["storage_bytes_written"] = r.bytes_written;
  j["energy_j"] = r.energy_j;
  j["foreground_write_ms"] = r.foreground_write_s * 1e3;
  j["io_host_ms"] = r.io_host_s * 1e3;
  // The I/O thread's busy time over the trace's span: above 1 its queue only grows, and the
  // latencies describe a service that cannot keep up (the summary warns).
  const double span_s = calls.empty() ? 0.0 : calls.back().time_s;
  // A span of 0 (every call at time 0) has no utilisation: null (it said 0 beside seconds of I/O).
  j["io_thread_utilization"] = span_s > 0 ? nlohmann::ordered_json(r.io_busy_s / span_s) : nlohmann::ordered_json();
  j["chunks"] = {{"read", r.chunks_read},
                 {"recomputed", r.chunks_recomputed},
                 {"written", r.chunks_written},
                 {"evicted", r.evicted_chunks},
                 {"killed_contexts", r.killed_contexts},
                 {"mean_kept_ratio", r.mean_kept_ratio}};
  if (functional) {
    // Measured on the served contexts: every call's compressed cache against INT8 (stand-in decoder).
    nlohmann::ordered_json acc;
    const auto& e = r.compressed_rel_error;
    acc["calls_measured"] = e.size();
    acc["mean_rel_error_vs_int8"] = e.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(mean(e));
    acc["max_rel_error_vs_int8"] = e.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(*std::max_element(e.begin(), e.end()));
    const auto m = density_stand_in(rq.service.seed);
    acc["decoder"] = {{"kind", "seeded stand-in"}, {"hidden", m.hidden}, {"heads", m.heads}, {"layers", m.layers}, {"vocab", m.vocab}};
    j["compression_accuracy"] = acc;
  }
  j["options"] = {{"chunk_tokens", opt.chunk_tokens},
                  {"global_ratio", opt.global_ratio},
                  {"compression", opt.compression},
                  {"recompute_pipeline", opt.recompute_pipeline},
                  {"lifecycle", opt.lifecycle},
                  {"recompute_system", opt.recompute_system},
                  {"density_sigma", opt.density_sigma},
                  {"io_granularity", io_granularity_name(io_opt.io_granularity)},
                  {"io_file_cycles", opt.io_file_cycles},
                  {"io_tensor_cycles", opt.io_tensor_cycles},
                  {"io_host_copies", opt.io_host_copies},
                  {"io_upload", opt.io_upload}};
  // Recompute: one chunk cold, and one chunk at the end of a context at the window (its attention
  // over the whole context); the attention per query-key pair; how long the profile's prefills ran.
  const double ct = opt.chunk_tokens, window = static_cast<double>(rq.model.max_context);
  const double last_start = std::max(0.0, window - ct);
  j["profiled_costs"] = {{"recompute_one_chunk_ms", costs.recompute_s.cold(ct) * 1e3},
                         // null when no served context reaches the window, so that the profile stopped short of it
                         // (a figure no run needs, extrapolated); when the device stopped it, extrapolated and said so.
                         {"recompute_chunk_at_window_ms", costs.recompute_s.longest_profiled_tokens() < window && costs.profile_stopped_by.empty()
                                                              ? nlohmann::ordered_json()
                                                              : nlohmann::ordered_json(costs.recompute_s.at(ct, RecomputeCost::pairs_of(last_start, ct)) * 1e3)},
                         {"recompute_per_mpair_ms", costs.recompute_s.per_pair() * 1e9},
                         {"recompute_one_chunk_j", costs.recompute_j.cold(ct)},
                         {"recompute_per_mpair_j", costs.recompute_j.per_pair() * 1e6},
                         {"recompute_profiled_tokens", costs.recompute_s.longest_profiled_tokens()},
                         {"longest_context_tokens", longest},
                         {"recompute_profile_stopped_by", costs.profile_stopped_by.empty() ? nlohmann::ordered_json()
                                                                                            : nlohmann::ordered_json(costs.profile_stopped_by)},
                         {"read_per_request_ms", costs.read_storage.per_request_s * 1e3},
                         {"read_gbps", costs.read_storage.per_byte_s > 0 ? 1e-9 / costs.read_storage.per_byte_s : 0.0},
                         {"write_per_request_ms", costs.write_storage.per_request_s * 1e3},
                         {"write_gbps", costs.write_storage.per_byte_s > 0 ? 1e-9 / costs.write_storage.per_byte_s : 0.0},
                         {"storage_requests_per_chunk", costs.io.requests_per_chunk},
                         {"tensors_per_request", costs.io.tensors_per_request},
                         {"host_per_chunk_ms", costs.io.host_per_chunk_s() * 1e3},
                         // An uncompressed chunk, its upload (or download) included.
                         {"read_per_chunk_ms", costs.read.seconds(1, static_cast<double>(chunk_bytes), static_cast<double>(chunk_bytes)) * 1e3},
                         {"write_per_chunk_ms", costs.write.seconds(1, static_cast<double>(chunk_bytes), static_cast<double>(chunk_bytes)) * 1e3}};
  j["by_contexts"] = by;
  return j;
}

std::string serve_summary(const nlohmann::ordered_json& j) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(3);
  o << "socsim serve: " << j["policy"].get<std::string>() << " on " << j["soc"].get<std::string>() << ", "
    << j["model"].get<std::string>() << ", " << counted(j["contexts"].get<std::uint64_t>(), "context") << ", pattern "
    << j["pattern"].get<std::string>() << ", " << counted(j["calls"].get<std::size_t>(), "call") << "\n";
  o << "  switch latency ms: mean " << j["mean_switch_ms"].get<double>() << "  p50 " << j["p50_switch_ms"].get<double>()
    << "  p95 " << j["p95_switch_ms"].get<double>() << "  p99 " << j["p99_switch_ms"].get<double>() << "\n";
  o << "  density source: " << j["density_source"].get<std::string>() << (j["densities_used"].get<bool>() ? "" : " (unused by this policy)");
  if (j.contains("compression_accuracy") && !j["compression_accuracy"]["mean_rel_error_vs_int8"].is_null()) {
    o << "; compressed-cache attention error vs INT8: mean " << j["compression_accuracy"]["mean_rel_error_vs_int8"].get<double>()
      << " over " << j["compression_accuracy"]["calls_measured"].get<std::size_t>() << " calls";
  }
  o << "\n";
  if (!j["max_active_contexts"].is_null()) {
    o << "  max active contexts with mean <= " << j["latency_bound_ms"].get<double>() << " ms: "
      << j["max_active_contexts"].get<int>() << "\n";
  }
  o << "  storage: read " << j["storage_bytes_read"].get<std::uint64_t>() / 1048576.0 << " MiB, written "
    << j["storage_bytes_written"].get<std::uint64_t>() / 1048576.0 << " MiB; energy " << j["energy_j"].get<double>() << " J\n";
  o << "  chunks recomputed " << j["chunks"]["recomputed"].get<std::uint64_t>() << ", read "
    << j["chunks"]["read"].get<std::uint64_t>() << "\n";
  const auto& stopped = j["profiled_costs"]["recompute_profile_stopped_by"];
  if (!stopped.is_null()) {
    o << fmt::format("  note: the recompute cost was profiled to {:.0f} tokens, longer contexts extrapolate it; it stopped at {}\n",
                     j["profiled_costs"]["recompute_profiled_tokens"].get<double>(), stopped.get<std::string>());
  }
  if (j.contains("io_thread_utilization") && j["io_thread_utilization"].is_number() && j["io_thread_utilization"].get<double>() > 1.0) {
    o << fmt::format("  warning: the service's I/O thread is busy {:.3g}x the trace's span: its queue only grows, so these latencies "
                     "are not a steady state (see llms.io_*)\n",
                     j["io_thread_utilization"].get<double>());
  }
  return o.str();
}

}  // namespace socsim::systems::llms
