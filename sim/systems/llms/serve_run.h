#pragma once
// One `socsim serve` run after its inputs are resolved: profile the costs, simulate the service
// over the trace, and for a generated trace repeat with 1..N contexts to find the most active
// contexts whose mean switch latency stays within the bound. Returns the JSON report (keys in a
// fixed order: byte-identical for the same inputs and seed).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/systems/llms/call_trace.h"
#include "sim/systems/llms/service_simulation.h"

namespace socsim::systems::llms {

struct ServeRequest {
  std::string soc_id;
  hw::SocSpec soc;
  model::ModelConfig model;
  ServiceConfig service;                     // contexts = the most contexts
  TraceSpec trace;                           // used when `replay` is empty
  std::optional<std::vector<Call>> replay;   // --trace
  std::string trace_file;
  std::vector<Dataset> datasets;
  double latency_bound_s = 0.010;
};

// Percentile by nearest rank of unsorted values (0 for none).
double percentile(std::vector<double> values, double pct);

nlohmann::ordered_json serve_run(const ServeRequest& request);

// The human summary of a report.
std::string serve_summary(const nlohmann::ordered_json& report);

}  // namespace socsim::systems::llms
