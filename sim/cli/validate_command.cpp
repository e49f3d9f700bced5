// `socsim validate`: runs every claim of a claims file (schema in calibration/README.md) and
// compares the simulator with the published numbers. A malformed claims file is bad input
// (exit 2, nothing run or written). So is a claim found faulty only when it runs (a metric the
// command's JSON lacks, arguments the command rejects): every claim still runs and the table is
// printed, then each such claim is named (file:line, key) and validate exits 2 writing no JSON.
// A claim outside tolerance is a finding in its row (exit 3); one whose command fails internally
// is reported in its row too, and validate exits 1 (an internal error);
// 0 only when every non-informational claim passes.
#include "sim/cli/program_options.h"
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "sim/report/json_text.h"
#include "sim/cli/command.h"
#include "sim/cli/input_paths.h"
#include "sim/cli/output_files.h"
#include "sim/config/config_error.h"
#include "sim/config/config_tree.h"
#include "sim/core/run_progress.h"
#include "sim/validation/claim.h"
#include "sim/validation/claim_report.h"
#include "sim/validation/claim_runner.h"
#include "sim/validation/claim_summary.h"

namespace po = boost::program_options;

namespace socsim::cli {

namespace {

// The commands a claim may name (run, microbench and the LLMS service's serve).
validation::CommandTable command_table() {
  return {{"microbench", &microbench_to_json}, {"run", &run_to_json}, {"serve", &serve_to_json}};
}

// Every file a claim's command reads (SoC files with their includes, models, workloads, traces,
// dataset tables, weights): `--json` over one of them would replace it with the results. A name
// that resolves to nothing is left to the claim's own run, which reports it in its row.
std::vector<NamedInput> claim_inputs(const std::vector<validation::Claim>& claims) {
  std::vector<NamedInput> inputs;
  std::set<std::pair<std::string, std::string>> seen;
  const auto add = [&](const validation::Measurement& m) {
    for (std::size_t a = 0; a + 1 < m.args.size(); ++a) {
      const std::string& option = m.args[a];
      const std::string& value = m.args[a + 1];
      if (!seen.emplace(option, value).second) continue;
      const std::string what = "claim's " + option;
      try {
        if (option == "--soc") {
          const auto path = resolve_input(InputKind::kSoc, value);
          const auto tree = config::ConfigTree::load_file(path);  // before `inputs` is moved from
          inputs = with_included(std::move(inputs), what, tree);
          inputs.push_back({what, path});
        } else if (option == "--model") {
          inputs.push_back({what, resolve_input(InputKind::kModel, value)});
        } else if (option == "--workload") {
          inputs.push_back({what, resolve_input(InputKind::kWorkload, value)});
        } else if (option == "--trace" || option == "--datasets" || option == "--weights") {
          inputs.push_back({what, value});
        }
      } catch (const config::ConfigError&) {
        // a missing or broken file: the claim's run names it
      }
    }
  };
  for (const auto& c : claims) {
    add(c.value);
    if (c.denominator) add(*c.denominator);
  }
  return inputs;
}

}  // namespace

int validate_command(const std::vector<std::string>& args) {
  po::options_description opts("socsim validate options");
  std::string claims_file, json_file;
  opts.add_options()
      ("help,h", "this message")
      ("claims", po::value(&claims_file), "claims file (YAML, schema in calibration/README.md)")
      ("json", po::value(&json_file), "also write the results as JSON to this file");
  po::variables_map vm;
  parse_options(args, opts, vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "usage: socsim validate --claims FILE.yaml [--json FILE]\n\n"
                 "Runs every claim and prints one row per claim (expected, simulated, relative error,\n"
                 "status pass/FAIL/info/ERROR), then `claims: N, within tolerance: K, median abs error: X%`.\n"
                 "Exit 0 when every non-informational claim is within tolerance, 3 when one is outside it,\n"
                 "2 for a malformed claims file or a claim naming a metric its command does not report or\n"
                 "arguments its command rejects (the table is still printed; no JSON is written), 1 when a\n"
                 "claim's command fails internally (reported in its row).\n\n"
              << opts;
    return 0;
  }
  if (claims_file.empty()) {
    throw config::ConfigError({"command line", 0, 0}, "--claims", "is required (a claims YAML file)");
  }
  if (!json_file.empty()) {  // before every claim runs
    check_output_path("--json", json_file, false);
    check_output_not_input("--json", json_file, {{"--claims", claims_file}});
  }

  // Loading checks the whole file before any claim runs.
  const std::vector<validation::Claim> claims = validation::load_claims_file(claims_file);
  if (!json_file.empty()) check_output_not_input("--json", json_file, claim_inputs(claims));
  validation::ClaimRunner runner(command_table());
  // A file of thousands of claims runs for minutes: said after 10 s, then every 30 s.
  std::optional<ScopedRunProgress> progress(std::in_place, 10.0, 30.0, stderr, false);
  const auto results = runner.run_all(claims);
  progress.reset();
  const auto summary = validation::summarize(results);

  std::ostringstream table;
  validation::print_table(results, table);
  std::cout << table.str() << validation::summary_line(summary) << "\n" << std::flush;

  bool bad_input = false;
  for (const auto& r : results) {
    if (!r.input_error) continue;
    std::cerr << "error: " << r.input_error->what() << "\n";
    bad_input = true;
  }
  if (bad_input) return 2;

  // Written only once every claim has run, so the file always holds a complete run.
  if (!json_file.empty()) {
    OutputFiles out;
    out.add(json_file, report::json_text(validation::results_json(results, summary), 2) + "\n");
    out.write_all();
  }
  // A claim whose command failed as a bug would: the contract's internal error, not a finding.
  for (const auto& r : results) {
    if (r.internal_error) return 1;
  }
  return validation::exit_status(summary);
}

}  // namespace socsim::cli
