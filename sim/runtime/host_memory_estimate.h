#pragma once
// The host memory a run will hold, estimated before it starts, so a run far too large for
// --max-host-memory is refused at once (exit 2) instead of after filling the memory. socsim keeps
// a request's whole plan while it runs (issue #21), so the estimate is the plan's size: the
// system plans the request with one and with two decode steps, the difference is one step's
// jobs and ops, and the run holds about that many bytes per decode token.
#include <cstdint>
#include <vector>

#include "sim/runtime/job.h"
#include "sim/runtime/run_request.h"
#include "sim/systems/system.h"

namespace socsim::runtime {

// Bytes a plan's jobs occupy on the heap (jobs, ops, names, dependency lists), a lower bound of
// what the run holds for them.
std::uint64_t plan_bytes(const Plan& plan);

// Host bytes the run will hold per decode token of `request` beyond a one-step run (the plan's
// per-step bytes times the overhead of the executor's per-job state and the allocator, measured).
std::uint64_t estimated_bytes_per_decode_token(systems::System& system, const RunRequest& req, const Request& request);

// Throws config::ConfigError naming --max-host-memory when some request's decode is estimated to
// need more than the run's limit; requests with fewer than kEstimateFromDecode decode tokens are
// not estimated (small, and planning them twice would cost more than it saves), nor are systems
// that run long decodes in windows (their plans do not grow with the decode).
inline constexpr std::uint64_t kEstimateFromDecode = 512;
void check_estimated_host_memory(systems::System& system, const RunRequest& req, const std::vector<Request>& requests);

}  // namespace socsim::runtime
