#pragma once
// `socsim run` in two steps, for callers that run many simulations (`socsim sweep`): prepare_run
// resolves and checks every option (bad input throws config::ConfigError before anything runs),
// simulate_prepared runs the simulation. `socsim run` itself is prepare + simulate + write.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/output_files.h"
#include "sim/report/run_report.h"
#include "sim/report/trace.h"

namespace socsim::config {
class ConfigTree;
}

namespace socsim::cli {

struct RunSetup;  // the resolved request, the configured system, the output options
struct RunSetupDeleter {
  void operator()(RunSetup* s) const;
};
using RunSetupPtr = std::unique_ptr<RunSetup, RunSetupDeleter>;

struct RunResult {
  report::RunReport report;
  report::TraceRecorder trace;
  std::shared_ptr<const config::ConfigTree> soc_tree;  // the resolved SoC description (dumped for the HTML page)
  std::string model_text;  // the model's dimensions (for the HTML page)
};

// The same options as `socsim run`; throws config::ConfigError on bad input.
RunSetupPtr prepare_run(const std::vector<std::string>& args);
bool is_help(const RunSetup& setup);  // --help was given: nothing to simulate
// --seed was given to a run that draws nothing with it (a timing run of one request, a workload
// of fixed lengths): the run warned; a sweep over seeds would repeat one simulation.
bool seed_without_effect(const RunSetup& setup);
// How much of a timeline simulate_prepared records: `run` sets it from --report-dir and
// --trace-detail (kOff without a report); a sweep sets it per run from --reports.
void set_trace_detail(RunSetup& setup, report::TraceDetail detail);
// The host-memory limit of the run (a sweep's --max-host-memory; 0 = none).
void set_host_memory_limit(RunSetup& setup, std::uint64_t bytes);
RunResult simulate_prepared(RunSetup& setup);

// report.json, trace.json and report.html of one run under `dir` (what --report-dir writes).
void add_report_files(const RunResult& result, const std::filesystem::path& dir, OutputFiles& out);

}  // namespace socsim::cli
