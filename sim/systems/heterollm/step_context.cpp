#include "sim/systems/heterollm/step_context.h"

#include <algorithm>
#include <stdexcept>

namespace socsim::systems::heterollm {

Tick StepContext::time(const std::vector<GroupCost>& groups, Tick submit) const {
  Tick host = 0, queue = 0;  // when the host has submitted the last kernel; when the queue empties
  Tick npu_free = 0;         // when the NPU's last part ended
  for (const auto& item : items_) {
    switch (item.kind) {
      case Kind::kKernel:
        host += submit;
        queue = std::max(queue, host) + static_cast<Tick>(item.value);
        break;
      case Kind::kGroup: {
        if (item.value >= groups.size()) throw std::logic_error("StepContext: a group without a cost");
        const GroupCost& g = groups[item.value];
        // The NPU part: its graph called once the host has submitted the kernels before it and the
        // NPU is free; its work starts when the call is done and the queue has run those kernels.
        Tick npu_end = 0;
        if (g.npu) {
          const Tick call = std::min(g.npu_call, g.npu_time);
          npu_end = std::max({std::max(host, npu_free) + call, host, queue}) + (g.npu_time - call);
          npu_free = npu_end;
        }
        // The GPU part's kernels, each submitted and queued: a kernel longer than a submission
        // hides the next one's.
        for (std::uint32_t i = 0; i < g.submissions; ++i) {
          const Tick share = g.gpu / g.submissions + (i < g.gpu % g.submissions ? 1 : 0);
          host += submit;
          queue = std::max(queue, host) + share;
        }
        // The kernels after the op need the NPU part's output: the host submits them once it ends.
        if (g.npu) host = std::max(host, npu_end);
        break;
      }
      case Kind::kHostWait:
        host = queue = std::max(host, queue);
        break;
    }
  }
  return std::max(host, queue);
}

}  // namespace socsim::systems::heterollm
