#pragma once
// The choices a free lane can make among waiting jobs (job.h PickPolicy).
#include <cstdint>
#include <vector>

#include "sim/runtime/job.h"

namespace socsim::runtime {

// Which jobs depend on each job (the reverse of Job::deps).
std::vector<std::vector<std::uint32_t>> dependents_of(const Plan& plan);

// llm.npu 3.4: C(g) = sign(g) * sum of T(s) over the jobs s that g's completion makes ready
// (every other dependency of s done, s not started), sign +1 when g runs on the CPU or GPU (it
// unlocks work, usually for the NPU) and -1 on the NPU. `done[j]`: job j has finished;
// `started[j]`: job j has begun (or is waiting for a lane).
double npu_stall_score(const Plan& plan, const std::vector<std::vector<std::uint32_t>>& dependents, std::uint32_t g,
                       const std::vector<bool>& done, const std::vector<bool>& started);

// The position in `waiting` a lane with `policy` runs next.
std::size_t pick_job(PickPolicy policy, const Plan& plan, const std::vector<std::vector<std::uint32_t>>& dependents,
                     const std::vector<std::uint32_t>& waiting, const std::vector<bool>& done, const std::vector<bool>& started);

}  // namespace socsim::runtime
