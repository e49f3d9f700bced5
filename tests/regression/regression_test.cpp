// Regression timing tests (ctest -L regression): every case of matrix.yaml is simulated in
// process and each metric compared with golden.json within tolerances.yaml. A failure lists each
// drifted metric with its golden value, the value now and the change in percent; re-bless with
// scripts/bless-regression.sh when the change is intended.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "sim/cli/run_setup.h"
#include "sim/config/config_tree.h"
#include "sim/report/run_report.h"
#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_results.h"
#include "sim/systems/system.h"
#include "sim/cli/sweep_fingerprint.h"
#include "sim/validation/metric_path.h"

namespace socsim::regression {
namespace {

const std::filesystem::path kDir = SOCSIM_REGRESSION_DIR;

struct Matrix {
  sweep::SweepSpec spec;
  sweep::SweepPlan plan;
  std::uint64_t fingerprint = 0;  // as `socsim sweep` writes it: the runs and their input files' contents
};

const Matrix& matrix() {
  static const Matrix m = [] {
    Matrix x;
    x.spec = sweep::load_sweep_spec(kDir / "matrix.yaml");
    x.plan = sweep::expand_sweep(x.spec);
    x.fingerprint = cli::sweep_fingerprint(x.spec, x.plan);
    return x;
  }();
  return m;
}

const sweep::SweepResults& golden() {
  static const sweep::SweepResults g = [] {
    const auto file = (kDir / "golden.json").string();
    std::ifstream in(file);
    return sweep::results_from_json(nlohmann::ordered_json::parse(in), file);
  }();
  return g;
}

struct Tolerances {
  double fallback = 0;
  std::map<std::string, double> per_metric;
  double of(const std::string& metric) const {
    const auto it = per_metric.find(metric);
    return it == per_metric.end() ? fallback : it->second;
  }
};

const Tolerances& tolerances() {
  static const Tolerances t = [] {
    auto tree = config::ConfigTree::load_file(kDir / "tolerances.yaml");
    auto root = tree.root();
    Tolerances x;
    x.fallback = root.number("default", 0, 1);
    if (auto m = root.optional_child("metrics")) {
      for (const auto& k : m->keys()) x.per_metric[k] = m->number(k, 0, 1);
    }
    tree.check_all_consumed();
    return x;
  }();
  return t;
}

std::vector<std::size_t> case_indices() {
  std::vector<std::size_t> v;
  for (const auto& r : matrix().plan.runs) v.push_back(r.index);
  return v;
}

class RegressionCase : public testing::TestWithParam<std::size_t> {};

TEST_P(RegressionCase, MetricsMatchGolden) {
  const auto& run = matrix().plan.runs[GetParam()];
  const auto& g = golden();
  const sweep::ResultRow* want = nullptr;
  for (const auto& row : g.rows) {
    if (row.run == run.index) want = &row;
  }
  ASSERT_EQ(g.fingerprint, matrix().fingerprint)
      << "tests/regression/matrix.yaml, an input file it names (SoC, model) or socsim's version changed since golden.json "
         "was blessed: run scripts/bless-regression.sh and say in the commit what moved";
  ASSERT_NE(want, nullptr) << "no golden for case " << run.index << " (" << run.label() << "): run scripts/bless-regression.sh";

  auto setup = cli::prepare_run(run.args);
  const auto json = report::to_json(cli::simulate_prepared(*setup).report);
  std::string drift;
  for (std::size_t m = 0; m < g.metrics.size(); ++m) {
    const auto& metric = g.metrics[m];
    std::optional<double> now;
    try {
      now = validation::lookup_metric(json, metric);
    } catch (const validation::MetricError&) {
    }
    const auto& was = want->metrics[m];
    if (!was && !now) continue;
    if (!was || !now) {
      drift += fmt::format("  {:<24} golden {:>14} now {:>14}  (metric {} the report)\n", metric, was ? fmt::format("{:.6g}", *was) : "-",
                           now ? fmt::format("{:.6g}", *now) : "-", was ? "left" : "appeared in");
      continue;
    }
    const double tol = tolerances().of(metric);
    const double diff = std::abs(*now - *was);
    if (diff > tol * std::abs(*was) && diff > 1e-12) {
      const std::string change = *was == 0 ? "from 0" : fmt::format("{:+.4f}%", 100.0 * (*now - *was) / std::abs(*was));
      drift += fmt::format("  {:<24} golden {:>14.6g} now {:>14.6g}  {:>10}  (tolerance {:g}%)\n", metric, *was, *now, change, 100 * tol);
    }
  }
  EXPECT_TRUE(drift.empty()) << "case " << run.index << " (" << run.label() << ") drifted from tests/regression/golden.json:\n"
                             << drift
                             << "If the change is intended, run scripts/bless-regression.sh and commit golden.json saying why.";
}

std::string case_name(const testing::TestParamInfo<std::size_t>& info) {
  std::string name = std::to_string(info.param);
  for (const auto& s : matrix().plan.runs[info.param].settings) name += "_" + s.value;
  for (auto& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Matrix, RegressionCase, testing::ValuesIn(case_indices()), case_name);

TEST(RegressionMatrix, CoversEveryRegisteredSystem) {
  std::set<std::string> covered;
  for (const auto& r : matrix().plan.runs) {
    for (const auto& s : r.settings) {
      if (s.key == "system") covered.insert(s.value);
    }
  }
  for (const auto& id : systems::SystemRegistry::builtin().ids()) {
    EXPECT_TRUE(covered.count(id)) << "system '" << id << "' has no regression case: add a line to tests/regression/matrix.yaml "
                                   << "(runs:) and run scripts/bless-regression.sh";
  }
}

TEST(RegressionMatrix, GoldenHasExactlyTheMatrixCases) {
  EXPECT_EQ(golden().rows.size(), matrix().plan.runs.size()) << "re-bless: scripts/bless-regression.sh";
  EXPECT_EQ(golden().metrics, matrix().spec.metrics) << "re-bless: scripts/bless-regression.sh";
}

}  // namespace
}  // namespace socsim::regression
