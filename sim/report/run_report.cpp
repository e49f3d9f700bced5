#include "sim/report/run_report.h"

#include <fmt/format.h>

#include "sim/core/counted.h"
#include "sim/core/printable_text.h"

namespace socsim::report {

nlohmann::ordered_json to_json(const RunReport& r) {
  nlohmann::ordered_json j;
  j["soc"] = r.soc;
  j["model"] = r.model;
  j["system"] = r.system;
  j["mode"] = r.mode;
  j["prompt_tokens"] = r.prompt_tokens;
  j["decode_tokens"] = r.decode_tokens;
  j["batch"] = r.batch;
  j["seed"] = r.seed;
  auto put = [&](const char* key, const std::optional<double>& v) {
    if (v) j[key] = *v;
  };
  put("ttft_ms", r.ttft_ms);
  put("prefill_ms", r.prefill_ms);
  put("prefill_tokens_per_s", r.prefill_tokens_per_s);
  put("decode_ms_per_token", r.decode_ms_per_token);
  put("decode_tokens_per_s", r.decode_tokens_per_s);
  put("total_ms", r.total_ms);
  put("energy_j", r.energy_j);
  j["simulated_ms"] = r.simulated_ms;
  nlohmann::ordered_json units = nlohmann::ordered_json::object();
  for (const auto& u : r.units) {
    nlohmann::ordered_json ju;
    ju["busy_ms"] = u.busy_ms;
    if (u.energy_j) ju["energy_j"] = *u.energy_j;
    units[u.name] = ju;
  }
  j["units"] = units;
  j["dram"] = {{"bytes", r.dram_bytes}, {"avg_gbps", r.dram_avg_gbps}, {"peak_gbps", r.dram_peak_gbps}};
  if (r.accuracy) j["accuracy"] = *r.accuracy;
  if (r.data_driven) j["data_driven"] = *r.data_driven;
  for (const auto& [k, v] : r.extra.items()) j[k] = v;
  if (!r.notes.empty()) j["notes"] = r.notes;
  return j;
}

std::vector<Headline> headline_metrics(const RunReport& r) {
  return {{"TTFT", r.ttft_ms, "ms"},         {"prefill", r.prefill_tokens_per_s, "tokens/s"},
          {"decode", r.decode_ms_per_token, "ms/token"}, {"decode", r.decode_tokens_per_s, "tokens/s"},
          {"total", r.total_ms, "ms"},       {"energy", r.energy_j, "J"}};
}

std::string summary_text(const RunReport& r) {
  // Names from the inputs, printable: a name's ESC sequence set the terminal's title and cleared it.
  std::string s = fmt::format("socsim run: {} on {} ({} system, {} mode)\n", printable(r.model), printable(r.soc), r.system, r.mode);
  if (r.extra.contains("workload")) {
    // A workload's requests ran back to back: token counts are totals, TTFT the mean (spread below).
    const auto& w = r.extra["workload"];
    const std::string requests = counted(w["requests"].get<std::size_t>(), "request");
    s += fmt::format("  prompt {} tokens, decode {} tokens in total over {}, batch {}\n", r.prompt_tokens, r.decode_tokens, requests, r.batch);
    s += fmt::format("  workload {}: {} back to back; TTFT p50 {:.1f} ms, p95 {:.1f} ms, max {:.1f} ms\n",
                     printable(w["name"].get<std::string>()), requests, w["ttft_ms"]["p50"].get<double>(),
                     w["ttft_ms"]["p95"].get<double>(), w["ttft_ms"]["max"].get<double>());
  } else {
    s += fmt::format("  prompt {} tokens, decode {} tokens, batch {}\n", r.prompt_tokens, r.decode_tokens, r.batch);
  }
  for (const auto& h : headline_metrics(r)) {
    if (h.value) s += fmt::format("  {:<22}{:>12.3f} {}\n", h.label, *h.value, h.unit);
  }
  s += fmt::format("  {:<22}{:>12.3f} ms simulated\n", "timeline", r.simulated_ms);
  s += fmt::format("  {:<22}{:>12.3f} GB, avg {:.1f} GB/s, peak {:.1f} GB/s\n", "DRAM traffic", r.dram_bytes / 1e9,
                   r.dram_avg_gbps, r.dram_peak_gbps);
  for (const auto& u : r.units) s += fmt::format("  {:<22}{:>12.3f} ms busy\n", u.name, u.busy_ms);
  if (r.accuracy) {
    // Functional mode: the system's numbers against the FP32 reference (sim/functional/accuracy.h).
    const auto& a = *r.accuracy;
    std::string what = fmt::format("{} of {} layers, weights {}", a.value("functional_layers", 0), a.value("layers", 0),
                                   a.value("weights", std::string("?")));
    if (a.contains("outlier_channels")) {
      what += fmt::format(", {} outlier channels x{}", a["outlier_channels"].get<std::uint64_t>(), a.value("outlier_scale", 0.0));
    }
    s += "  accuracy vs FP32 reference (" + what + ")\n";
    const auto num = [&](const char* label, const char* key) {
      if (!a.contains(key)) return;
      s += a[key].is_number() ? fmt::format("    {:<20}{:>12.4e}\n", label, a[key].get<double>()) : fmt::format("    {:<20}{:>12}\n", label, "non-finite");
    };
    num("hidden rel error", "hidden_rel_error");
    num("logits rel error", "logits_rel_error");
    num("logits max abs error", "logits_max_abs_error");
    if (a.contains("non_finite")) {
      s += fmt::format("    {:<20}{:>12} (the system's numerics overflowed: {} hidden values, {} logits NaN or infinite)\n", "top-1 agreement",
                       "none", a["non_finite"].value("hidden_values", std::uint64_t{0}), a["non_finite"].value("logits", std::uint64_t{0}));
    }
    if (a.contains("top1_agreement") && a["top1_agreement"].is_number()) {
      s += fmt::format("    {:<20}{:>11.1f}% of {} positions\n", "top-1 agreement", 100.0 * a["top1_agreement"].get<double>(),
                       a.value("positions", std::uint64_t{0}));
    }
  }
  if (r.data_driven && r.data_driven->contains("timing_mode")) {
    const auto& d = *r.data_driven;
    const auto& tm = d["timing_mode"];
    s += fmt::format("  {:<22}{:>12.3f} ms prefill, {:.3f} ms in all in timing mode (modelled {}); {:+.3f} ms and {:+.3f} ms from the data\n",
                     "data-driven timing", tm.value("prefill_ms", 0.0), tm.value("total_ms", 0.0), d.value("quantities", std::string("quantities")),
                     r.prefill_ms.value_or(0) - tm.value("prefill_ms", 0.0), r.total_ms.value_or(0) - tm.value("total_ms", 0.0));
  }
  for (const auto& n : r.notes) s += "  note: " + n + "\n";
  return s;
}

}  // namespace socsim::report
