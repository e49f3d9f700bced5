#pragma once
// The result of one `socsim run`, independent of how it is written out. Optional fields are the
// values a given simulation could not compute: writers omit them rather than invent them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace socsim::report {

struct UnitReport {
  std::string name;  // npu | gpu | cpu | dram | storage
  double busy_ms = 0;
  std::optional<double> energy_j;
};

struct RunReport {
  std::string soc, model, system, mode;
  std::uint64_t prompt_tokens = 0, decode_tokens = 0, batch = 0, seed = 0;
  std::optional<double> ttft_ms, prefill_ms, prefill_tokens_per_s, decode_ms_per_token, decode_tokens_per_s,
      total_ms, energy_j;
  std::vector<UnitReport> units;
  double dram_bytes = 0, dram_avg_gbps = 0, dram_peak_gbps = 0;
  double simulated_ms = 0;  // simulated time covered by the run
  std::optional<nlohmann::ordered_json> accuracy;
  // Functional mode: which quantities of the timed plan came from the computed data, and the
  // timing mode's figures beside them (sim/runtime/data_driven.h).
  std::optional<nlohmann::ordered_json> data_driven;
  // Further results a run computed (per-op-type time, decode DRAM bandwidth, graph builds, ...),
  // written after the contract's keys in this order.
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  std::vector<std::string> notes;  // caveats shown in every output (e.g. placeholder stages)
};

// The contract's JSON (DESIGN.md 2), keys in a fixed order so reports are byte-identical.
nlohmann::ordered_json to_json(const RunReport& r);

// The headline figures of a run (label, value, unit) in the order people read them; the printed
// summary and the HTML page both show these. Values a run could not compute are empty.
struct Headline {
  const char* label;
  std::optional<double> value;
  const char* unit;
};
std::vector<Headline> headline_metrics(const RunReport& r);

// The human summary printed by `socsim run`.
std::string summary_text(const RunReport& r);

}  // namespace socsim::report
