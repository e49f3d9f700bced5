#pragma once
// Foundation-stage stand-in for the runtime (roadmap step 4 replaces it): it drives the engine and
// the shared DRAM model with the model's real weight traffic, one pass for the prompt and one per
// decode token, from the CPU's port. It computes no operator time, so the report carries DRAM
// traffic and timeline only; latency and energy keys stay absent rather than invented.
#include "sim/report/run_report.h"
#include "sim/report/trace.h"
#include "sim/runtime/run_request.h"

namespace socsim::runtime {

report::RunReport run_placeholder(const RunRequest& request, report::TraceRecorder& trace);

}  // namespace socsim::runtime
