#include "sim/sweep/sweep_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <array>
#include <map>
#include <stdexcept>
#include <string_view>

#include "sim/config/config_tree.h"
#include "sim/config/units.h"
#include "sim/core/printable_text.h"
#include "sim/report/report_paths.h"

namespace socsim::sweep {

namespace {

// `socsim run` options a sweep may vary; outputs (--json, --report-dir) belong to the sweep.
constexpr std::array<std::string_view, 11> kRunOptions = {"soc",  "model", "system", "workload", "prompt",          "decode",
                                                          "batch", "mode", "seed",   "weights",  "functional-layers"};

bool is_run_option(const std::string& key) {
  return std::find(kRunOptions.begin(), kRunOptions.end(), key) != kRunOptions.end();
}

void check_key(const std::string& key, const config::SourceLocation& where, const std::string& path) {
  if (key == "report-dir" || key == "json") {
    throw config::ConfigError(where, path, "the sweep writes the outputs (use socsim sweep --out DIR [--reports])");
  }
  if (key.empty()) throw config::ConfigError(where, path, "expected a run option or a parameter key");
  // A quoted ' dram.peak ' ran as dram.peak while its CSV column kept the spaces; no key has one.
  if (std::any_of(key.begin(), key.end(), [](unsigned char c) { return std::isspace(c) != 0; })) {
    std::string bare;
    for (const unsigned char c : key) {
      if (std::isspace(c) == 0) bare += static_cast<char>(c);
    }
    throw config::ConfigError(where, path, "'" + key + "': a key holds no spaces (e.g. '" + bare + "')");
  }
}

// A map of settings (`base:` or one entry of `runs:`); `set:` inside it is a map of parameters.
std::vector<Setting> read_settings(const config::Section& map, bool allow_set_block) {
  std::vector<Setting> out;
  for (const auto& key : map.keys()) {
    const auto where = map.location_of(key);
    const std::string path = map.path().empty() ? key : map.path() + "." + key;
    if (key == "set" && allow_set_block) {
      const auto set = map.child("set");
      for (const auto& k : set.keys()) {
        check_key(k, set.location_of(k), path + "." + k);
        // A list or map (npu.standard_lengths: [32, 64]) goes to --set in flow form.
        out.push_back({k, set.value_text(k), set.location_of(k)});
      }
      continue;
    }
    check_key(key, where, path);
    out.push_back({key, is_run_option(key) ? map.string(key) : map.value_text(key), where});
  }
  return out;
}

}  // namespace

const std::vector<std::string>& default_metrics() {
  static const std::vector<std::string> kMetrics = {
      "ttft_ms",        "prefill_ms",    "prefill_tokens_per_s", "decode_ms_per_token", "decode_tokens_per_s",
      "total_ms",       "energy_j",      "dram.bytes",           "dram.avg_gbps",       "dram.peak_gbps",
      "units.npu.busy_ms", "units.gpu.busy_ms", "units.cpu.busy_ms"};
  return kMetrics;
}

std::vector<std::string> setting_args(const Setting& s) {
  if (is_run_option(s.key)) return {"--" + s.key, s.value};
  return {"--set", s.key + "=" + s.value};
}

namespace {

// One value in any spelling ("8", "08", "+8"; "8MiB", "8192 KiB") as one key: its quantity's
// kind and value in base units, or its text when it is no quantity. Made once per value (a grid
// axis of a thousand values compared pairwise, parsing both each time, took a minute under
// ASan).
std::string canonical_value(const std::string& text);

// A flow list ("[1.0, 0.9]", a per-level table) element by element, so "[1, 0.90]" is the same
// list; nested lists are compared as text.
std::string canonical_list(const std::string& text) {
  const auto first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
  if (first == std::string::npos || text[first] != '[' || text[last] != ']') return {};
  const std::string inner = text.substr(first + 1, last - first - 1);
  if (inner.find_first_of("[]{}\"'") != std::string::npos) return {};
  std::string out = "list:";
  std::size_t at = 0;
  while (true) {
    const auto comma = inner.find(',', at);
    const auto item = inner.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    out += canonical_value(b == std::string::npos ? std::string() : item.substr(b, e - b + 1)) + "|";
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

// A whole number of more than 15 digits as its digits, exact at any size (a double made 2^53 and
// 2^53 + 1, two seeds, one value). Empty when the text is not one, or a shorter one.
std::string canonical_integer(const std::string& text) {
  const auto b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
  if (b == std::string::npos) return {};
  std::string_view v(text.data() + b, e - b + 1);
  const bool negative = v.front() == '-';
  if (v.front() == '+' || v.front() == '-') v.remove_prefix(1);
  if (v.empty() || v.find_first_not_of("0123456789") != std::string_view::npos) return {};
  const auto digits = v.find_first_not_of('0');
  // Up to 15 digits a double is exact: those take the quantity path below, so 8 and 8.0 stay one.
  if (digits == std::string_view::npos || v.size() - digits <= 15) return {};
  return std::string("int:") + (negative ? "-" : "") + std::string(v.substr(digits));
}

std::string canonical_value(const std::string& text) {
  using config::Quantity;
  if (auto list = canonical_list(text); !list.empty()) return list;
  if (auto whole = canonical_integer(text); !whole.empty()) return whole;
  int kind = 0;
  for (Quantity q : {Quantity::kNumber, Quantity::kTime, Quantity::kFrequency, Quantity::kBandwidth, Quantity::kSize, Quantity::kPower,
                     Quantity::kEnergy, Quantity::kEnergyPerByte}) {
    ++kind;
    try {
      const double v = config::parse_quantity(text, q);
      return fmt::format("{}:{:.17g}", kind, v == 0.0 ? 0.0 : v);  // -0 is the 0 it equals (the two ran as two runs)
    } catch (const std::invalid_argument&) {
      // not of this kind
    }
  }
  return "text:" + text;
}

}  // namespace

std::string canonical_setting_value(const std::string& text) { return canonical_value(text); }

SweepSpec load_sweep_spec(const std::filesystem::path& file) {
  auto tree = config::ConfigTree::load_file(file);
  auto root = tree.root();
  SweepSpec spec;
  spec.file = file.string();
  spec.name = root.has("name") ? root.string("name") : file.stem().string();
  // Printed in the summary, the CSV and the HTML report: a newline or an ESC broke them.
  if (const auto bad = first_control_character(spec.name); bad && root.has("name")) {
    throw config::ConfigError(root.location_of("name"), "name",
                              fmt::format("holds control character 0x{:02x}; a sweep's name is printed in its summary and reports", *bad));
  }
  if (auto base = root.optional_child("base")) spec.base = read_settings(*base, true);
  if (root.has("runs")) {
    const auto runs = root.list_child("runs");
    // With a grid, runs x grid of no runs is nothing, yet the grid alone is what would run: the
    // empty list says neither clearly.
    if (runs.size() == 0) {
      throw config::ConfigError(root.location_of("runs"), "runs",
                                "is an empty list: list at least one run (a map of settings), or leave `runs:` out to sweep the grid alone");
    }
    for (std::size_t i = 0; i < runs.size(); ++i) spec.cases.push_back(read_settings(runs.at(i), false));
  }
  if (auto grid = root.optional_child("grid")) {
    for (const auto& key : grid->keys()) {
      const std::string path = "grid." + key;
      check_key(key, grid->location_of(key), path);
      Axis axis{key, grid->location_of(key), {}};
      std::map<std::string, std::size_t> seen;  // canonical value -> its index in axis.values
      // A parameter's values may be lists or maps (--set's flow form); a run option's are scalars.
      for (auto& v : is_run_option(key) ? grid->scalar_list(key) : grid->value_list(key)) {
        // A value listed twice would run every combination with it twice, for the same numbers.
        const auto [it, fresh] = seen.emplace(canonical_value(v.text), axis.values.size());
        if (!fresh) {
          const auto& earlier = axis.values[it->second];
          const std::string as = earlier.value == v.text ? "" : "as '" + earlier.value + "', ";
          throw config::ConfigError(v.location, path,
                                    "'" + v.text + "' is listed twice (" + as + "the first at line " + std::to_string(earlier.location.line) + ")");
        }
        axis.values.push_back({key, std::move(v.text), v.location});
      }
      spec.grid.push_back(std::move(axis));
    }
  }
  if (root.has("metrics")) {
    for (auto& m : root.scalar_list("metrics")) {
      // Checked now, not after the runs: a typo must not cost a sweep's hours.
      if (auto why = report::check_report_path(m.text)) throw config::ConfigError(m.location, "metrics", *why);
      // Two columns of one name in results.json/csv: a reader keeps one, and which is not said.
      const auto same = std::find(spec.metrics.begin(), spec.metrics.end(), m.text);
      if (same != spec.metrics.end()) {
        const auto& first = spec.metric_locations[static_cast<std::size_t>(same - spec.metrics.begin())];
        throw config::ConfigError(m.location, "metrics", "'" + m.text + "' is listed twice (the first at line " + std::to_string(first.line) + ")");
      }
      spec.metrics.push_back(std::move(m.text));
      spec.metric_locations.push_back(m.location);
    }
  } else {
    spec.metrics = default_metrics();
  }
  tree.check_all_consumed();
  if (spec.grid.empty() && spec.cases.empty()) {
    throw config::ConfigError({spec.file, 1, 0}, "grid", "a sweep needs a `grid:` (key: [values...]) or a `runs:` list");
  }
  // A case repeating a base key: run options would be given twice (boost refused it without a
  // file or line), parameters would depend on which --set came last. Said at the case's line.
  for (std::size_t i = 0; i < spec.cases.size(); ++i) {
    for (const auto& r : spec.cases[i]) {
      for (const auto& b : spec.base) {
        if (r.key == b.key) {
          throw config::ConfigError(r.location, "runs[" + std::to_string(i) + "]." + r.key,
                                    "is also set in base (line " + std::to_string(b.location.line) +
                                        "); set it in every case instead, or only in base");
        }
      }
    }
  }
  // Two cases of the same settings (in any order) would run the same simulation twice.
  std::map<std::vector<std::pair<std::string, std::string>>, std::size_t> seen;
  for (std::size_t i = 0; i < spec.cases.size(); ++i) {
    std::vector<std::pair<std::string, std::string>> settings;
    for (const auto& r : spec.cases[i]) settings.emplace_back(r.key, canonical_value(r.value));  // 4MiB = 4096KiB
    std::sort(settings.begin(), settings.end());
    const auto [it, fresh] = seen.emplace(std::move(settings), i);
    if (fresh) continue;
    const auto& first = spec.cases[it->second];
    throw config::ConfigError(spec.cases[i].empty() ? config::SourceLocation{spec.file, 1, 0} : spec.cases[i].front().location,
                              "runs[" + std::to_string(i) + "]",
                              "has the same settings as runs[" + std::to_string(it->second) + "]" +
                                  (first.empty() ? std::string() : " (line " + std::to_string(first.front().location.line) + ")") +
                                  ": it would run the same simulation twice");
  }
  // A key both fixed and varied would make the column lie about what ran.
  for (const auto& axis : spec.grid) {
    for (const auto& b : spec.base) {
      if (b.key == axis.key) throw config::ConfigError(axis.location, "grid." + axis.key, "is also set in base (line " + std::to_string(b.location.line) + ")");
    }
    // A case crossed with the grid would have its value silently replaced by the grid's.
    for (const auto& c : spec.cases) {
      for (const auto& r : c) {
        if (r.key == axis.key) {
          throw config::ConfigError(r.location, "runs." + r.key, "is also a grid axis (line " + std::to_string(axis.location.line) +
                                                                   "): each case runs at every grid value, so the case's value would never run");
        }
      }
    }
  }
  return spec;
}

}  // namespace socsim::sweep
