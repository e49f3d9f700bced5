#pragma once
// Which dotted paths a run's JSON report can hold, known before anything runs: a sweep checks its
// `metrics:` against them up front, so a typo fails in a second instead of after hours of runs.
// Kept beside run_report.cpp, which writes them; a test checks that every number any system's
// report holds passes this check, so the two cannot drift apart unnoticed.
#include <optional>
#include <string>

namespace socsim::report {

// nullopt when `path` can name a number of some run's report; otherwise why not, with the keys
// possible at the point where it went wrong and the nearest one ("'units.npu.busy' : no key
// 'busy' under 'units.npu' (possible: busy_ms, energy_j; did you mean busy_ms?)"). Sections
// whose keys depend on the system or the data (system_info, op_time_ms, workload, accuracy,
// data_driven, gpu_background, trace) are checked to their first segment only.
std::optional<std::string> check_report_path(const std::string& path);

}  // namespace socsim::report
