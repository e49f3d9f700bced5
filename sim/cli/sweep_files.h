#pragma once
// A sweep's own result files, read and written by `socsim sweep` and `socsim sweep merge`.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/output_files.h"
#include "sim/sweep/sweep_results.h"

namespace socsim::cli {

// The JSON of a sweep's results.json; throws config::ConfigError naming the file when it cannot be
// read, is not JSON, repeats a key in an object (an edit: which value is the run's?) or is past
// 1 GiB (a million runs' rows take a few hundred MB).
nlohmann::ordered_json read_results_json(const std::filesystem::path& file);

// results.csv, results.json and report.html of `r` into `out_dir`.
void add_sweep_results(const sweep::SweepResults& r, const std::filesystem::path& out_dir, OutputFiles& out);

}  // namespace socsim::cli
