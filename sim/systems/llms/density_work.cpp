#include "sim/systems/llms/density_work.h"

#include <algorithm>
#include <cmath>

namespace socsim::systems::llms {

DensityWork density_work(const std::vector<Call>& calls, std::uint64_t window) {
  DensityWork w;
  std::vector<std::uint64_t> tokens;
  for (const auto& c : calls) {
    if (c.context >= tokens.size()) tokens.resize(static_cast<std::size_t>(c.context) + 1, 0);
    const std::uint64_t delta = std::min<std::uint64_t>(c.delta_tokens, window);
    auto& t = tokens[c.context];
    t = std::min(window, t + delta);
    w.window_tokens += static_cast<double>(t);
    w.new_tokens += static_cast<double>(delta);
    w.calls += 1;
  }
  return w;
}

DensityWork density_search_work(const std::vector<Call>& calls, std::uint32_t contexts, std::uint64_t window) {
  DensityWork w = density_work(calls, window);
  if (calls.empty() || window == 0) return w;
  double delta = 0;
  for (const auto& c : calls) delta += static_cast<double>(std::min<std::uint64_t>(c.delta_tokens, window));
  delta /= static_cast<double>(calls.size());
  const double total = static_cast<double>(calls.size()), cap = static_cast<double>(window);
  // Calls until a context's window is full, then every call attends over all of it.
  const double filling = std::floor(cap / delta);
  for (std::uint32_t n = 1; n < contexts; ++n) {
    const double per_context = total / n;
    const double growing = std::min(per_context, filling);
    const double window_tokens = delta * growing * (growing + 1) / 2 + (per_context - growing) * cap;
    w.window_tokens += n * window_tokens;
    w.new_tokens += total * delta;
    w.calls += total;
  }
  return w;
}

}  // namespace socsim::systems::llms
