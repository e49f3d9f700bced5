#pragma once
// The plan level of the trace, recorded after a plan has run: each job as a slice on its unit's
// job tracks ("npu.jobs", "cpu.jobs", "cpu.jobs.1", ...: a job goes to the first of its unit's
// tracks free at its start, so slices on one track never overlap), the hand-over wait before its
// ops as a nested "sync" slice, and a flow arrow from every producer on another unit to the job
// it releases: the synchronizations between processors, visible in Perfetto.
#include "sim/report/trace.h"
#include "sim/runtime/executor.h"
#include "sim/runtime/job.h"

namespace socsim::runtime {

void record_plan_trace(const Plan& plan, const Executor& ex, report::TraceRecorder& trace);

}  // namespace socsim::runtime
