#pragma once
// What a sweep (or one shard of it) produced: one row per run, the varied keys and the metrics.
// Kept as JSON (results.json, what `sweep merge` reads back exactly) and written as CSV
// (results.csv, what people plot). Numbers are printed in their shortest exact form so the
// files are byte-identical whatever --jobs was.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/input_changes.h"

namespace socsim::sweep {

struct ResultRow {
  std::size_t run = 0;
  std::vector<std::string> values;            // one per column key, "" when a case leaves it unset
  std::vector<std::optional<double>> metrics;  // one per metric; empty when the run's report lacks it
  std::string error;                           // why the run failed (then no metrics); empty when it ran
};

struct SweepResults {
  std::string name, spec;
  std::uint64_t fingerprint = 0;
  std::size_t runs_total = 0;
  std::string shard;  // "0/1" for a whole sweep, "merged" after `sweep merge`
  std::vector<std::string> columns, metrics;
  std::vector<ResultRow> rows;  // by run index
  // The fingerprint's parts (cli/sweep_fingerprint.h), so a merge of shards run from other inputs
  // names what changed. Files written before socsim recorded them have none.
  InputParts inputs;
};

// A run's check: its index and keys hashed with the sweep's fingerprint, written beside them so a
// merge or resume refuses a row whose keys are not the ones the sweep gave that run.
std::uint64_t row_check(const SweepResults& r, const ResultRow& row);

nlohmann::ordered_json to_json(const SweepResults& r);
// Throws config::ConfigError naming `file` when it is not a sweep's results.json, or (with
// verify_checks) when a row's keys are not the ones its check says the sweep gave that run.
SweepResults results_from_json(const nlohmann::ordered_json& j, const std::string& file, bool verify_checks = true);
// Only whose results these are (sweep, spec, fingerprint, inputs, runs_total, shard, columns,
// metrics), without reading the runs: a file whose rows were edited is still that sweep's.
SweepResults results_header_from_json(const nlohmann::ordered_json& j, const std::string& file);
// CSV: run, the columns, the metrics, and an `error` column when any run failed.
std::string to_csv(const SweepResults& r);
std::size_t failed_runs(const SweepResults& r);
// The rows as an aligned table for the console: run, the varied keys and the first three metrics.
void print_table(const SweepResults& r, std::ostream& os);

// Shards of one sweep into one table. Throws config::ConfigError (exit 2) when the shards come
// from different specs, overlap, or leave runs out (naming the missing run numbers).
SweepResults merge_results(const std::vector<std::pair<std::string, SweepResults>>& shards);

}  // namespace socsim::sweep
