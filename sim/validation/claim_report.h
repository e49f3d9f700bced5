#pragma once
// What `socsim validate` shows: a table with one row per claim and the JSON written by --json.
// Both are built from the same ClaimResults so the screen and the file cannot disagree.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/validation/claim_runner.h"
#include "sim/validation/claim_summary.h"

namespace socsim::validation {

// Up to 6 significant digits without exponent for everyday magnitudes, trailing zeros trimmed:
// 0.9 -> "0.9", 12032.5 -> "12032.5", 268435456 -> "268435456".
std::string format_value(double v);

// Header, one row per claim (id, expected, simulated, relative error %, tolerance, status), and
// under an ERROR row its message. Does not print the summary line.
void print_table(const std::vector<ClaimResult>& results, std::ostream& os);

// {claims: [{id, source, expected, simulated, relative_error, tolerance, informational, status,
// message}], summary: {claims, within_tolerance, median_abs_error_pct}}. relative_error is a
// fraction like tolerance; simulated, relative_error and median_abs_error_pct are null when
// there is no number.
nlohmann::ordered_json results_json(const std::vector<ClaimResult>& results, const Summary& summary);

}  // namespace socsim::validation
