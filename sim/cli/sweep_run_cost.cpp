#include "sim/cli/sweep_run_cost.h"

#include <map>
#include <string>

#include "sim/cli/input_paths.h"
#include "sim/model/model_config.h"
#include "sim/runtime/workload/workload.h"

namespace socsim::cli {

namespace {

// The value of option `name` in a run's arguments (the last one given), or "".
std::string option(const std::vector<std::string>& args, const std::string& name) {
  std::string v;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == name) v = args[i + 1];
  }
  return v;
}

double number_or(const std::string& text, double fallback) {
  try {
    return text.empty() ? fallback : std::stod(text);
  } catch (const std::exception&) {
    return fallback;  // prepare_run reports a bad value; a cost only orders runs
  }
}

}  // namespace

std::vector<double> sweep_run_costs(const sweep::SweepPlan& plan) {
  std::map<std::string, double> layers_of;                 // by --model value
  std::map<std::string, std::vector<runtime::Request>> requests_of;  // by --workload value
  std::vector<double> cost;
  cost.reserve(plan.runs.size());
  for (const auto& run : plan.runs) {
    const std::string model = option(run.args, "--model"), workload = option(run.args, "--workload");
    double layers = 32;  // no model given: prepare_run refuses the run anyway
    if (!model.empty()) {
      auto it = layers_of.find(model);
      if (it == layers_of.end()) {
        it = layers_of.emplace(model, static_cast<double>(model::load_model_config(resolve_input(InputKind::kModel, model)).layers)).first;
      }
      layers = it->second;
    }
    double steps = 0;
    if (!workload.empty()) {
      auto it = requests_of.find(workload);
      if (it == requests_of.end()) {
        it = requests_of.emplace(workload, runtime::draw_requests(runtime::load_workload(resolve_input(InputKind::kWorkload, workload)))).first;
      }
      for (const auto& r : it->second) steps += static_cast<double>(r.prompt) / 256 + static_cast<double>(r.decode) + 1;
    } else {
      steps = number_or(option(run.args, "--prompt"), 0) / 256 + number_or(option(run.args, "--decode"), 0) + 1;
    }
    const double mode = option(run.args, "--mode") == "functional" ? 10 : 1;
    cost.push_back(layers * steps * mode);
  }
  return cost;
}

}  // namespace socsim::cli
