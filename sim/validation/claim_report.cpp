#include "sim/validation/claim_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace socsim::validation {

namespace {

constexpr int kSignificant = 6;

std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string optional_value(const std::optional<double>& v) { return v ? format_value(*v) : "-"; }

std::string percent(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.1f}%", *fraction * 100) : "-";
}

nlohmann::ordered_json nullable(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

std::string format_value(double v) {
  const double a = std::abs(v);
  if (!std::isfinite(v)) return fmt::format("{}", v);
  if (a == 0) return "0";
  if (a >= 1e15 || a < 1e-4) return fmt::format("{:.{}g}", v, kSignificant);
  if (v == std::round(v)) return fmt::format("{:.0f}", v);
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::clamp(kSignificant - 1 - magnitude, 0, kSignificant + 3);
  return trim_zeros(fmt::format("{:.{}f}", v, decimals));
}

void print_table(const std::vector<ClaimResult>& results, std::ostream& os) {
  using Row = std::array<std::string, 6>;
  std::vector<Row> rows{{"claim", "expected", "simulated", "rel err", "tolerance", "status"}};
  for (const auto& r : results) {
    rows.push_back({r.id, format_value(r.expected), optional_value(r.simulated), percent(r.relative_error),
                    percent(r.tolerance), std::string(status_name(r.status))});
  }
  // Columns as wide as their widest cell, so a far-off value never shifts the rest of its row.
  std::array<std::size_t, 6> width{};
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& row = rows[k];
    // Ids left-aligned, numbers right-aligned, status last without padding.
    os << fmt::format("{:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", row[0], width[0], row[1], width[1], row[2],
                      width[2], row[3], width[3], row[4], width[4], row[5]);
    if (k > 0 && !results[k - 1].message.empty()) os << "    " << results[k - 1].message << "\n";
  }
}

nlohmann::ordered_json results_json(const std::vector<ClaimResult>& results, const Summary& summary) {
  nlohmann::ordered_json claims = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    nlohmann::ordered_json c;
    c["id"] = r.id;
    c["source"] = r.source;
    c["expected"] = r.expected;
    c["simulated"] = nullable(r.simulated);
    c["relative_error"] = nullable(r.relative_error);
    c["tolerance"] = r.tolerance;
    c["informational"] = r.informational;
    c["status"] = std::string(status_name(r.status));
    c["message"] = r.message;
    claims.push_back(std::move(c));
  }
  nlohmann::ordered_json j;
  j["claims"] = std::move(claims);
  j["summary"] = {{"claims", summary.claims},
                  {"within_tolerance", summary.within_tolerance},
                  {"median_abs_error_pct", nullable(summary.median_abs_error_pct)}};
  return j;
}

}  // namespace socsim::validation
