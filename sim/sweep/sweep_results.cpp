#include "sim/sweep/sweep_results.h"
#include "sim/sweep/sweep_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "sim/config/config_error.h"

namespace socsim::sweep {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

[[noreturn]] void bad_file(const std::string& file, const std::string& key, const std::string& msg) {
  throw config::ConfigError({file, 0, 0}, key, msg);
}

// Typed reads of what to_json writes, naming the value's path in the file when it is not there or
// not of its type (a hand-edited or damaged file): `runs[3].metrics.ttft_ms: expected a number,
// got "nan"`, not the JSON library's "type must be number, but is string".
using Json = nlohmann::ordered_json;

[[noreturn]] void not_results(const std::string& file, const std::string& path, const std::string& what) {
  bad_file(file, "", "not a sweep results.json: " + path + ": " + what);
}

std::string shown(const Json& v) {
  std::string d = v.dump();
  if (d.size() <= 60) return d;
  std::size_t cut = 57;
  while (cut > 0 && (static_cast<unsigned char>(d[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return d.substr(0, cut) + "...";
}

const Json& field(const Json& o, const std::string& key, const std::string& path, const std::string& file) {
  const std::string at = path.empty() ? key : path + "." + key;
  if (!o.is_object()) not_results(file, path.empty() ? "the file" : path, "expected an object, got " + shown(o));
  if (!o.contains(key)) not_results(file, at, "missing");
  return o.at(key);
}

std::string text(const Json& v, const std::string& path, const std::string& file) {
  if (!v.is_string()) not_results(file, path, "expected a string, got " + shown(v));
  return v.get<std::string>();
}

double number(const Json& v, const std::string& path, const std::string& file) {
  if (!v.is_number()) not_results(file, path, "expected a number, got " + shown(v));
  return v.get<double>();
}

std::vector<std::string> texts(const Json& v, const std::string& path, const std::string& file) {
  if (!v.is_array()) not_results(file, path, "expected a list of names, got " + shown(v));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(text(v[i], path + "[" + std::to_string(i) + "]", file));
  return out;
}

}  // namespace

std::uint64_t row_check(const SweepResults& r, const ResultRow& row) {
  // Each text as results.json holds it: written with invalid UTF-8 replaced (sweep_files.cpp),
  // so a value from a file name that is not UTF-8 reads back as the replacement character; the
  // check must be the same before writing and after reading.
  const auto as_written = [](const std::string& text) {
    const std::string dumped = nlohmann::ordered_json(text).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    return nlohmann::ordered_json::parse(dumped).get<std::string>();  // the text itself when it is UTF-8
  };
  std::uint64_t h = r.fingerprint;
  fingerprint_mix(h, std::to_string(row.run));
  for (std::size_t i = 0; i < r.columns.size() && i < row.values.size(); ++i) {
    fingerprint_mix(h, as_written(r.columns[i]));
    fingerprint_mix(h, as_written(row.values[i]));
  }
  return h;
}

nlohmann::ordered_json to_json(const SweepResults& r) {
  nlohmann::ordered_json j;
  j["sweep"] = r.name;
  j["spec"] = r.spec;
  j["fingerprint"] = fmt::format("{:016x}", r.fingerprint);
  if (auto in = inputs_json(r.inputs); !in.is_null()) j["inputs"] = std::move(in);
  j["runs_total"] = r.runs_total;
  j["shard"] = r.shard;
  j["columns"] = r.columns;
  j["metrics"] = r.metrics;
  auto rows = nlohmann::ordered_json::array();
  for (const auto& row : r.rows) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < r.metrics.size(); ++i) {
      if (row.metrics[i]) m[r.metrics[i]] = *row.metrics[i];
    }
    nlohmann::ordered_json keys = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < r.columns.size(); ++i) keys[r.columns[i]] = row.values[i];
    nlohmann::ordered_json jr = {{"run", row.run}, {"keys", keys}, {"check", fmt::format("{:016x}", row_check(r, row))}, {"metrics", m}};
    if (!row.error.empty()) jr["error"] = row.error;
    rows.push_back(std::move(jr));
  }
  j["runs"] = rows;
  if (const std::size_t failed = failed_runs(r); failed > 0) j["failed_runs"] = failed;
  return j;
}

SweepResults results_from_json(const nlohmann::ordered_json& j, const std::string& file, bool verify_checks) {
  SweepResults r;
  try {
    r.name = text(field(j, "sweep", "", file), "sweep", file);
    r.spec = text(field(j, "spec", "", file), "spec", file);
    {
      // 16 hex digits as written by to_json; stoull's own exceptions would be internal errors.
      const std::string hex = text(field(j, "fingerprint", "", file), "fingerprint", file);
      std::uint64_t fp = 0;
      const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), fp, 16);
      if (hex.empty() || ec != std::errc() || end != hex.data() + hex.size()) {
        bad_file(file, "fingerprint", "expected the sweep's fingerprint (hexadecimal digits), got \"" + hex + "\"");
      }
      r.fingerprint = fp;
    }
    if (j.contains("inputs")) {
      // What to_json writes: {what: hash} with string hashes (a merge compares them).
      const auto& in = j.at("inputs");
      if (!in.is_object()) bad_file(file, "inputs", "expected the sweep's inputs ({\"what\": \"hash\", ...}), got " + shown(in));
      for (const auto& [what, hash] : in.items()) {
        if (!hash.is_string()) bad_file(file, "inputs." + what, "expected the input's hash (a string), got " + shown(hash));
        r.inputs.emplace_back(what, hash.get<std::string>());
      }
    }
    if (!field(j, "runs_total", "", file).is_number_unsigned()) bad_file(file, "runs_total", "expected a whole number, got " + shown(j.at("runs_total")));
    r.runs_total = j.at("runs_total").get<std::size_t>();
    // A sweep has at most the grid's cap of runs; more would have a merge walk (and report missing)
    // billions of runs for minutes.
    if (r.runs_total > kMaxSweepRuns) {
      bad_file(file, "runs_total", "expected at most " + std::to_string(kMaxSweepRuns) + " runs (a sweep's limit), got " + std::to_string(r.runs_total));
    }
    r.shard = text(field(j, "shard", "", file), "shard", file);
    if (r.shard != "merged") {
      // "I/N" as --shard wrote it (0 <= I < N): an edited one would give wrong advice on what to rerun.
      try {
        parse_shard(r.shard);
      } catch (const config::ConfigError&) {
        bad_file(file, "shard", "expected I/N with 0 <= I < N (as --shard takes) or \"merged\", got \"" + r.shard + "\"");
      }
    }
    r.columns = texts(field(j, "columns", "", file), "columns", file);
    r.metrics = texts(field(j, "metrics", "", file), "metrics", file);
    std::set<std::size_t> listed;
    std::size_t checked = 0;           // rows with a check
    std::string first_unchecked;       // the first row without one
    const Json& runs = field(j, "runs", "", file);
    if (!runs.is_array()) not_results(file, "runs", "expected a list of runs, got " + shown(runs));
    for (std::size_t n = 0; n < runs.size(); ++n) {
      const Json& jr = runs[n];
      const std::string at = "runs[" + std::to_string(n) + "]";
      ResultRow row;
      if (!field(jr, "run", at, file).is_number_unsigned()) {
        bad_file(file, at + ".run", "expected a run index (a whole number from 0), got " + shown(jr.at("run")));
      }
      row.run = jr.at("run").get<std::size_t>();
      const std::string where = "run " + std::to_string(row.run);
      if (row.run >= r.runs_total) bad_file(file, "run", where + " is not in the sweep (it has " + std::to_string(r.runs_total) + " runs)");
      // socsim writes each run once: a second row would be merged, or resumed, as two results of it.
      if (!listed.insert(row.run).second) bad_file(file, "run", where + " is listed twice");
      // What to_json writes: every column's value, and only the sweep's metrics (a metric this run
      // did not report is left out of its row).
      const auto& keys = field(jr, "keys", at, file);
      const auto& jm = field(jr, "metrics", at, file);
      if (!keys.is_object() || !jm.is_object()) bad_file(file, "", where + ": keys and metrics must be objects");
      for (const auto& [key, value] : keys.items()) {
        if (std::find(r.columns.begin(), r.columns.end(), key) == r.columns.end()) bad_file(file, "keys." + key, where + ": not a column of the sweep");
      }
      for (const auto& [key, value] : jm.items()) {
        if (std::find(r.metrics.begin(), r.metrics.end(), key) == r.metrics.end()) bad_file(file, "metrics." + key, where + ": not a metric of the sweep");
      }
      for (const auto& c : r.columns) {
        if (!keys.contains(c)) bad_file(file, "keys." + c, where + ": lacks the value of this column");
        row.values.push_back(text(keys.at(c), at + ".keys." + c, file));
      }
      for (const auto& m : r.metrics) {
        row.metrics.push_back(jm.contains(m) ? std::optional<double>(number(jm.at(m), at + ".metrics." + m, file)) : std::nullopt);
      }
      // The run's keys are what the sweep (its fingerprint: spec, grid and inputs) gave this run
      // index: an edited value, or a row moved to another index, would merge (or resume) as a
      // result of a configuration the sweep never ran. Files written before socsim wrote the
      // check have none, and are taken as they are (a file checks all its rows or none).
      if (!jr.contains("check") && first_unchecked.empty()) first_unchecked = where;
      if (jr.contains("check")) ++checked;
      if (jr.contains("check") && verify_checks) {
        const std::string want = fmt::format("{:016x}", row_check(r, row));
        const std::string got = text(jr.at("check"), at + ".check", file);
        if (got != want) {
          std::string shown_keys;
          for (std::size_t i = 0; i < r.columns.size(); ++i) shown_keys += (i ? " " : "") + r.columns[i] + "=" + row.values[i];
          bad_file(file, at + ".keys",
                   where + "'s keys (" + (shown_keys.empty() ? std::string("none") : shown_keys) +
                       ") are not the ones this sweep gave run " + std::to_string(row.run) +
                       " (its check is " + got + ", they give " + want +
                       "): the file was edited or damaged; run the shard again rather than merge or resume it");
        }
      }
      if (jr.contains("error")) {
        row.error = text(jr.at("error"), at + ".error", file);
        // A failed run has no metrics (to_json writes none): both would count it as failed and plot it.
        if (!jm.empty()) bad_file(file, "metrics", where + " has both an error and metrics: a failed run reports none");
      }
      r.rows.push_back(std::move(row));
    }
    // socsim writes a check on every row or (before it wrote them) on none: a row without one
    // beside rows with one had it removed, and would merge as an unchecked older row.
    if (verify_checks && checked > 0 && !first_unchecked.empty()) {
      bad_file(file, "check", first_unchecked + " has no check, though other rows of the file have one: the file was edited or damaged; run the shard again");
    }
  } catch (const nlohmann::json::exception& e) {
    bad_file(file, "", std::string("not a sweep results.json: ") + e.what());
  }
  return r;
}

SweepResults results_header_from_json(const nlohmann::ordered_json& j, const std::string& file) {
  if (!j.is_object()) return results_from_json(j, file, false);  // refused, as not a results.json
  // Every key but the rows (a results.json of 10^5 runs is mostly rows: not copied).
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "runs") header[it.key()] = it.value();
  }
  header["runs"] = nlohmann::ordered_json::array();
  return results_from_json(header, file, false);
}

std::size_t failed_runs(const SweepResults& r) {
  std::size_t n = 0;
  for (const auto& row : r.rows) n += row.error.empty() ? 0 : 1;
  return n;
}

std::string to_csv(const SweepResults& r) {
  const bool errors = failed_runs(r) > 0;
  std::string s = "run";
  for (const auto& c : r.columns) s += "," + csv_field(c);
  for (const auto& m : r.metrics) s += "," + csv_field(m);
  if (errors) s += ",error";
  s += "\n";
  for (const auto& row : r.rows) {
    s += std::to_string(row.run);
    for (const auto& v : row.values) s += "," + csv_field(v);
    for (const auto& m : row.metrics) s += "," + (m ? fmt::format("{}", *m) : std::string());
    if (errors) s += "," + csv_field(row.error);
    s += "\n";
  }
  return s;
}

SweepResults merge_results(const std::vector<std::pair<std::string, SweepResults>>& shards) {
  if (shards.empty()) bad_file("command line", "merge", "expected one or more shard folders");
  SweepResults out = shards.front().second;
  out.shard = "merged";
  out.rows.clear();
  std::map<std::size_t, std::string> seen;  // run -> the shard it came from
  std::map<std::string, std::string> labels;  // "I/N" -> the file that is that shard
  for (const auto& [file, s] : shards) {
    // Named by what differs: two shards of one spec name differ in nothing a name shows.
    const char* differs = s.fingerprint != out.fingerprint ? "fingerprint"
                          : s.runs_total != out.runs_total ? "runs_total"
                          : s.columns != out.columns       ? "columns"
                          : s.metrics != out.metrics       ? "metrics"
                                                           : nullptr;
    if (s.fingerprint != out.fingerprint) {
      // Named by the parts that changed where both shards recorded them.
      const std::string changed = changed_inputs(inputs_json(out.inputs), inputs_json(s.inputs));
      if (!changed.empty()) {
        bad_file(file, "inputs",
                 "comes from a different sweep than " + shards.front().first + ": against it, " + changed +
                     "; shards must be run from the same spec, inputs and metrics");
      }
    }
    if (differs != nullptr) {
      bad_file(file, differs,
               "comes from a different sweep than " + shards.front().first + ": its " + differs + " differ" + (std::string(differs) == "metrics" || std::string(differs) == "columns" ? "" : "s") +
                   " (sweep " + s.name + " vs " + out.name + "); shards must be run from the same spec, inputs and metrics");
    }
    // Each part of a sharded sweep runs once: two folders that are both part I/N are one shard run
    // twice (or an edited label), and the second's runs are not the part's runs.
    if (s.shard != "merged") {
      auto [it, fresh] = labels.emplace(s.shard, file);
      if (!fresh) bad_file(file, "shard", "is shard " + s.shard + ", as " + it->second + " is: merge each part of the sweep once");
    }
    for (const auto& row : s.rows) {
      auto [it, fresh] = seen.emplace(row.run, file);
      if (!fresh) bad_file(file, "run", "run " + std::to_string(row.run) + " is also in " + it->second + " (overlapping shards)");
      out.rows.push_back(row);
    }
  }
  std::string missing;
  std::size_t n_missing = 0;
  for (std::size_t i = 0; i < out.runs_total; ++i) {
    if (seen.count(i)) continue;
    if (++n_missing <= 20) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (n_missing > 0) {
    // Which shards to run again: those of the N parts that no folder given holds.
    std::string rerun;
    std::size_t count = 0;
    std::map<std::size_t, bool> have;
    bool same_count = true;
    for (const auto& [file, s] : shards) {
      std::size_t i = 0, n = 0;
      const char* text = s.shard.c_str();
      const char* end = text + s.shard.size();
      const auto a = std::from_chars(text, end, i);
      const auto b = a.ec == std::errc() && a.ptr != end && *a.ptr == '/' ? std::from_chars(a.ptr + 1, end, n) : a;
      if (a.ec != std::errc() || b.ec != std::errc() || b.ptr != end || n == 0 || i >= n || (count != 0 && n != count)) {
        same_count = false;  // a merged folder, or a damaged file: no shard advice
        continue;
      }
      count = n;
      have[i] = true;
    }
    if (same_count && count > 0) {
      for (std::size_t i = 0; i < count; ++i) {
        if (!have.count(i)) rerun += fmt::format("{}--shard {}/{}", rerun.empty() ? "" : ", ", i, count);
      }
    }
    bad_file("command line", "merge",
             fmt::format("{} of {} runs are in no shard: {}{}{}", n_missing, out.runs_total, missing, n_missing > 20 ? ", ..." : "",
                         rerun.empty() ? std::string(" (a shard missing or failed?)")
                                       : " (missing shards: run `socsim sweep` with " + rerun + " and merge again)"));
  }
  std::sort(out.rows.begin(), out.rows.end(), [](const ResultRow& a, const ResultRow& b) { return a.run < b.run; });
  return out;
}

void print_table(const SweepResults& r, std::ostream& os) {
  const std::size_t shown = std::min<std::size_t>(r.metrics.size(), 3);
  std::vector<std::string> head{"run"};
  for (const auto& c : r.columns) head.push_back(c);
  for (std::size_t m = 0; m < shown; ++m) head.push_back(r.metrics[m]);
  std::vector<std::vector<std::string>> rows{head};
  for (const auto& row : r.rows) {
    std::vector<std::string> cells{std::to_string(row.run)};
    for (const auto& v : row.values) cells.push_back(v);
    for (std::size_t m = 0; m < shown; ++m) cells.push_back(row.metrics[m] ? fmt::format("{:.3f}", *row.metrics[m]) : "-");
    rows.push_back(std::move(cells));
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& cells : rows) {
    for (std::size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], cells[i].size());
  }
  for (const auto& cells : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < cells.size(); ++i) line += fmt::format(" {:>{}}", cells[i], width[i]);
    os << line << "\n";
  }
}

}  // namespace socsim::sweep
