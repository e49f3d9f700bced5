#pragma once
// The choices a free lane can make among waiting jobs (job.h PickPolicy).
#include <cstdint>
#include <span>
#include <vector>

#include "sim/runtime/job.h"

namespace socsim::runtime {

// Which jobs depend on each job (the reverse of Job::deps), in job order: one array with offsets
// (a vector per job was an allocation per job of every plan, for a table only the npu-stall
// policy reads).
class Dependents {
 public:
  std::span<const std::uint32_t> of(std::uint32_t job) const {
    return {list_.data() + first_[job], list_.data() + first_[job + 1]};
  }
  std::size_t size() const { return first_.empty() ? 0 : first_.size() - 1; }

 private:
  friend Dependents dependents_of(const Plan& plan);
  std::vector<std::uint32_t> first_;  // job j's dependents are list_[first_[j], first_[j + 1])
  std::vector<std::uint32_t> list_;
};
Dependents dependents_of(const Plan& plan);

// llm.npu 3.4: C(g) = sign(g) * sum of T(s) over the jobs s that g's completion makes ready
// (every other dependency of s done, s not started), sign +1 when g runs on the CPU or GPU (it
// unlocks work, usually for the NPU) and -1 on the NPU. `done[j]`: job j has finished;
// `started[j]`: job j has begun (or is waiting for a lane).
double npu_stall_score(const Plan& plan, const Dependents& dependents, std::uint32_t g,
                       const std::vector<bool>& done, const std::vector<bool>& started);

// The position in `waiting` a lane with `policy` runs next.
std::size_t pick_job(PickPolicy policy, const Plan& plan, const Dependents& dependents,
                     const std::vector<std::uint32_t>& waiting, const std::vector<bool>& done, const std::vector<bool>& started);

}  // namespace socsim::runtime
