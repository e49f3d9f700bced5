#pragma once
// A lane: jobs that run one at a time on one processor (llm.npu 3.4: "each processor runs one
// subgraph at a time"). A job asks for the lane when its dependencies are met; when the lane is
// free, a pick among every job waiting at that moment chooses who runs next. The pick is made
// after the events of the current tick (a zero-delay event), so jobs that become ready together
// are all candidates.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "sim/core/sync.h"
#include "sim/core/task.h"

namespace socsim::runtime {

class LaneGate {
 public:
  // `pick` returns the position in `waiting` of the job to run (waiting is never empty).
  using Pick = std::function<std::size_t(const std::vector<std::uint32_t>& waiting)>;
  LaneGate(Simulator& sim, Pick pick) : sim_(sim), pick_(std::move(pick)) {}
  LaneGate(const LaneGate&) = delete;
  LaneGate& operator=(const LaneGate&) = delete;

  // Completes when `job` holds the lane.
  Task<> acquire(std::uint32_t job);
  void release();
  bool busy() const { return busy_; }

 private:
  void schedule_pick();

  Simulator& sim_;
  Pick pick_;
  bool busy_ = false;
  bool pick_pending_ = false;
  std::vector<std::uint32_t> waiting_;
  std::map<std::uint32_t, std::unique_ptr<Trigger>> wake_;
};

}  // namespace socsim::runtime
