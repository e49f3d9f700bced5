#include "sim/report/report_paths.h"

#include <map>
#include <vector>

#include "sim/config/edit_distance.h"

namespace socsim::report {

namespace {

// A report key: a number (leaf), an object of known keys, or an object whose keys vary.
struct Key {
  enum Kind { kLeaf, kKnown, kFree } kind = kLeaf;
  std::map<std::string, Key> children;
};

Key leaf() { return {}; }
Key free_below() { return {Key::kFree, {}}; }
Key known(std::map<std::string, Key> children) { return {Key::kKnown, std::move(children)}; }

const Key& report_keys() {
  static const Key root = [] {
    const Key unit = known({{"busy_ms", leaf()}, {"energy_j", leaf()}});
    std::map<std::string, Key> top;
    for (const char* k : {"prompt_tokens", "decode_tokens", "batch", "seed", "ttft_ms", "prefill_ms", "prefill_tokens_per_s",
                          "decode_ms_per_token", "decode_tokens_per_s", "decode_rows", "total_ms", "energy_j", "simulated_ms", "decode_dram_gbps",
                          "average_power_w", "npu_graphs_built", "jobs", "events", "events_saved_by_replays", "prefill_npu_busy_ms", "prefill_npu_idle_ms",
                          "attention_ms", "attention_energy_j", "attention_energy_with_idle_j", "attention_dram_bytes"}) {
      top[k] = leaf();
    }
    top["units"] = known({{"npu", unit}, {"gpu", unit}, {"cpu", unit}, {"dram", unit}, {"storage", unit}});
    top["dram"] = known({{"bytes", leaf()}, {"avg_gbps", leaf()}, {"peak_gbps", leaf()}});
    top["energy_breakdown_j"] =
        known({{"npu", leaf()}, {"gpu", leaf()}, {"cpu", leaf()}, {"dram", leaf()}, {"storage", leaf()}, {"soc_base", leaf()}});
    for (const char* k : {"op_time_ms", "system_info", "workload", "accuracy", "data_driven", "gpu_background", "trace"}) top[k] = free_below();
    return known(std::move(top));
  }();
  return root;
}

// The key two typos away at most, else the shortest that begins with what was given ("ttft" ->
// "ttft_ms"); "" when neither.
std::string nearest(const std::map<std::string, Key>& keys, const std::string& given) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto& [k, v] : keys) {
    const std::size_t d = config::detail::edit_distance(k, given);
    if (d < best_d) {
      best_d = d;
      best = k;
    }
  }
  if (!best.empty()) return best;
  for (const auto& [k, v] : keys) {
    if (k.rfind(given, 0) == 0 && (best.empty() || k.size() < best.size())) best = k;
  }
  return best;
}

}  // namespace

std::optional<std::string> check_report_path(const std::string& path) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    segments.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const Key* at = &report_keys();
  std::string where;
  for (const auto& seg : segments) {
    if (seg.empty()) return "'" + path + "': an empty segment (a dotted path such as units.npu.busy_ms)";
    if (at->kind == Key::kFree) return std::nullopt;
    if (at->kind == Key::kLeaf) return "'" + path + "': '" + where + "' is a number, with no keys below it";
    const auto it = at->children.find(seg);
    if (it == at->children.end()) {
      std::string possible;
      for (const auto& [k, v] : at->children) possible += (possible.empty() ? "" : ", ") + k;
      const std::string guess = nearest(at->children, seg);
      return "'" + path + "': no key '" + seg + "'" + (where.empty() ? std::string(" in a run's report") : " under '" + where + "'") +
             " (possible: " + possible + ")" + (guess.empty() ? std::string() : "; did you mean " + guess + "?");
    }
    where += (where.empty() ? "" : ".") + seg;
    at = &it->second;
  }
  if (at->kind == Key::kKnown) {
    std::string possible;
    for (const auto& [k, v] : at->children) possible += (possible.empty() ? "" : ", ") + k;
    return "'" + path + "' is a section, not a number (add one of: " + possible + ")";
  }
  return std::nullopt;
}

}  // namespace socsim::report
