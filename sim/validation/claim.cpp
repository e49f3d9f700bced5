// Loading claims files. Every check happens here, before any claim runs, so a malformed file
// stops `validate` with exit 2 and nothing written (contract), rather than half a table.
#include "sim/validation/claim.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "sim/config/config_tree.h"
#include "sim/config/edit_distance.h"
#include "sim/validation/command_args.h"

namespace socsim::validation {

namespace {

using config::ConfigError;
using config::Section;

std::string key_path(const Section& s, std::string_view key) {
  return s.path().empty() ? std::string(key) : s.path() + "." + std::string(key);
}

// Rejects keys a map does not allow before any of its values is read. The tree-wide check
// (ConfigTree::check_all_consumed) only runs after everything was read, so a misspelt required
// key ("tolerence") would first surface as "missing required key tolerance"; checking each map
// up front reports the typo itself. Same two-edit typo threshold as the configuration's own hint.
void check_known_keys(const Section& map, std::span<const std::string_view> allowed) {
  constexpr std::size_t kMaxTypoDistance = 2;
  for (const std::string& key : map.keys()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string_view best;
    std::size_t best_distance = kMaxTypoDistance + 1;
    for (std::string_view candidate : allowed) {
      const std::size_t d = config::detail::edit_distance(key, candidate);
      if (d < best_distance && d < candidate.size()) {
        best = candidate;
        best_distance = d;
      }
    }
    std::string hint;
    if (!best.empty()) {
      hint = "; did you mean '" + std::string(best) + "'?";
    } else {
      for (std::string_view a : allowed) hint += (hint.empty() ? " (allowed: " : ", ") + std::string(a);
      hint += ")";
    }
    throw ConfigError(map.location_of(key), key_path(map, key), "unknown key" + hint);
  }
}

std::string list_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ");
    out += names[i];
  }
  return out;
}

// The single command block present in `s`. Two blocks would make the claim ambiguous (which
// one is measured?), so they are an error at the second one rather than a silent choice.
std::string find_command(const Section& s, std::span<const std::string_view> names) {
  std::string found;
  for (std::string_view name : names) {
    if (!s.has(name)) continue;
    if (!found.empty()) {
      throw ConfigError(s.location_of(name), key_path(s, name),
                        "only one of " + list_names(names) + " is allowed, '" + found + "' is already given");
    }
    found = name;
  }
  if (found.empty()) {
    throw ConfigError(s.location(), s.path(), "expected exactly one of " + list_names(names));
  }
  return found;
}

std::string read_metric(const Section& s) {
  const std::string metric = s.string("metric");
  const bool empty_segment = metric.empty() || metric.front() == '.' || metric.back() == '.' ||
                             metric.find("..") != std::string::npos;
  if (empty_segment) {
    throw ConfigError(s.location_of("metric"), key_path(s, "metric"),
                      "expected a dotted path into the command's JSON such as units.npu.busy_ms, got '" + metric + "'");
  }
  return metric;
}

// Records where the measurement's command and metric are written (s holds both keys).
void locate(const Section& s, Measurement& m) {
  m.command_location = s.location_of(m.command);
  m.command_key = key_path(s, m.command);
  m.metric_location = s.location_of("metric");
  m.metric_key = key_path(s, "metric");
}

Measurement read_measurement(const Section& s) {
  constexpr std::string_view kKeys[] = {"microbench", "run", "serve", "metric"};
  check_known_keys(s, kKeys);
  Measurement m;
  m.command = find_command(s, kClaimCommands);
  m.args = command_args(s.child(m.command));
  m.metric = read_metric(s);
  locate(s, m);
  return m;
}

// expect and tolerance are divided by / compared against, so zero, negative and non-finite
// values would make every verdict meaningless.
double positive(const Section& s, std::string_view key) {
  const double v = s.number(key);
  if (!(v > 0) || !std::isfinite(v)) {
    throw ConfigError(s.location_of(key), key_path(s, key), "must be a finite number > 0");
  }
  return v;
}

std::string non_empty_string(const Section& s, std::string_view key) {
  std::string v = s.string(key);
  if (v.empty()) throw ConfigError(s.location_of(key), key_path(s, key), "must not be empty");
  return v;
}

Claim read_claim(const Section& c) {
  constexpr std::string_view kKinds[] = {"microbench", "run", "serve", "ratio"};
  constexpr std::string_view kKeys[] = {"id",     "source", "microbench", "run",       "serve",
                                        "ratio",  "metric", "expect",     "tolerance", "informational"};
  check_known_keys(c, kKeys);
  Claim claim;
  claim.location = c.location();
  claim.id = non_empty_string(c, "id");
  // Printed in the results table: a newline or a terminal escape ("\u001b[31m" in a quoted id)
  // would break the table or recolour the user's terminal.
  if (const auto bad = std::find_if(claim.id.begin(), claim.id.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; });
      bad != claim.id.end()) {
    throw ConfigError(c.location_of("id"), key_path(c, "id"),
                      fmt::format("holds control character 0x{:02x}; an id is printed in the results table", static_cast<unsigned char>(*bad)));
  }
  claim.source = non_empty_string(c, "source");
  const std::string kind = find_command(c, kKinds);
  if (kind == "ratio") {
    if (c.has("metric")) {
      throw ConfigError(c.location_of("metric"), key_path(c, "metric"),
                        "a ratio claim takes its metrics inside numerator and denominator, not here");
    }
    const Section ratio = c.child("ratio");
    constexpr std::string_view kSides[] = {"numerator", "denominator"};
    check_known_keys(ratio, kSides);
    claim.value = read_measurement(ratio.child("numerator"));
    claim.denominator = read_measurement(ratio.child("denominator"));
  } else {
    claim.value = Measurement{kind, command_args(c.child(kind)), read_metric(c)};
    locate(c, claim.value);
  }
  claim.expect = positive(c, "expect");
  // A relative error divides by expect: below 1e-12 it overflows to inf for any result a metric
  // gives (1e-320 made "inf%" and a JSON null).
  if (claim.expect < 1e-12 || claim.expect > 1e18) {
    throw ConfigError(c.location_of("expect"), key_path(c, "expect"), "must be in [1e-12, 1e18] (a published number in the metric's unit)");
  }
  claim.tolerance = positive(c, "tolerance");
  // A relative tolerance past 100x accepts any result: no claim at all.
  if (claim.tolerance > 100) {
    throw ConfigError(c.location_of("tolerance"), key_path(c, "tolerance"), "must be at most 100 (a relative error; larger accepts any result)");
  }
  claim.informational = c.boolean_or("informational", false);
  return claim;
}

std::vector<Claim> read_claims(config::ConfigTree& tree) {
  constexpr std::string_view kTopLevel[] = {"claims"};
  check_known_keys(tree.root(), kTopLevel);
  const Section list = tree.root().child("claims");
  const std::size_t n = list.size();
  if (n == 0) throw ConfigError(list.location(), "claims", "expected at least one claim");
  std::vector<Claim> claims;
  std::map<std::string, config::SourceLocation> seen;  // id -> where it was first defined
  for (std::size_t i = 0; i < n; ++i) {
    const Section c = list.at(i);
    Claim claim = read_claim(c);
    const auto [it, inserted] = seen.emplace(claim.id, c.location_of("id"));
    if (!inserted) {
      throw ConfigError(c.location_of("id"), key_path(c, "id"),
                        "duplicate claim id '" + claim.id + "' (first defined at " + it->second.file + ":" +
                            std::to_string(it->second.line) + ")");
    }
    claims.push_back(std::move(claim));
  }
  // Unknown keys can only be known once every reader has run, hence last.
  tree.check_all_consumed();
  return claims;
}

}  // namespace

std::vector<Claim> load_claims_file(const std::filesystem::path& path) {
  config::ConfigTree tree = config::ConfigTree::load_file(path);
  return read_claims(tree);
}

std::vector<Claim> load_claims_string(std::string_view yaml, std::string file_name) {
  config::ConfigTree tree = config::ConfigTree::load_string(yaml, std::move(file_name));
  return read_claims(tree);
}

}  // namespace socsim::validation
