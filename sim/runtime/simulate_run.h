#pragma once
// One inference request, end to end: build the SoC, let the system plan the request, execute the
// plan on the units, and turn what happened into the run report (latency, throughput, energy,
// per-unit and per-op-type time, DRAM traffic).
#include "sim/report/run_report.h"
#include "sim/report/trace.h"
#include "sim/runtime/run_request.h"
#include "sim/systems/system.h"

namespace socsim::runtime {

report::RunReport simulate_run(const RunRequest& request, systems::System& system, report::TraceRecorder& trace);

}  // namespace socsim::runtime
