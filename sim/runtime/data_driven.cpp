#include "sim/runtime/data_driven.h"

#include <algorithm>

namespace socsim::runtime {

std::vector<std::uint64_t> DataDriven::active_per_step() const {
  const std::uint64_t steps = decode_steps.empty() ? 0 : *std::max_element(decode_steps.begin(), decode_steps.end());
  std::vector<std::uint64_t> active(steps, 0);
  for (const std::uint64_t n : decode_steps) {
    for (std::uint64_t s = 0; s < n; ++s) ++active[s];
  }
  return active;
}

}  // namespace socsim::runtime
