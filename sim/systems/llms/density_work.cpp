#include "sim/systems/llms/density_work.h"

#include <algorithm>
#include <cmath>

namespace socsim::systems::llms {

DensityWork density_work(const std::vector<Call>& calls, std::uint64_t window) {
  DensityWork w;
  std::vector<std::uint64_t> tokens;
  double held = 0;  // all contexts' tokens
  for (const auto& c : calls) {
    if (c.context >= tokens.size()) tokens.resize(static_cast<std::size_t>(c.context) + 1, 0);
    const std::uint64_t delta = std::min<std::uint64_t>(c.delta_tokens, window);
    auto& t = tokens[c.context];
    held -= static_cast<double>(t);
    t = std::min(window, t + delta);
    held += static_cast<double>(t);
    w.held_tokens += held;
    w.window_tokens += static_cast<double>(t);
    w.new_tokens += static_cast<double>(delta);
    w.calls += 1;
  }
  return w;
}

DensityWork density_search_work(const std::vector<Call>& calls, std::uint32_t contexts, std::uint64_t window) {
  DensityWork w = density_work(calls, window);
  if (calls.empty() || window == 0) return w;
  // Each context's mean delta in this trace: a generated trace gives context c the dataset c mod
  // the table's size, so the first n contexts' deltas differ from the whole trace's mean.
  std::vector<double> sum(contexts, 0.0), count(contexts, 0.0);
  for (const auto& c : calls) {
    if (c.context >= contexts) continue;
    sum[c.context] += static_cast<double>(std::min<std::uint64_t>(c.delta_tokens, window));
    count[c.context] += 1;
  }
  const double total = static_cast<double>(calls.size()), cap = static_cast<double>(window);
  double means = 0, seen = 0;
  for (std::uint32_t n = 1; n < contexts; ++n) {
    if (count[n - 1] > 0) means += sum[n - 1] / count[n - 1], seen += 1;
    if (seen == 0) continue;  // no call of the first n contexts: nothing to go by (the trace of n draws its own)
    const double delta = means / seen;
    // Calls until a context's window is full, then every call attends over all of it.
    const double per_context = total / n;
    const double growing = std::min(per_context, delta > 0 ? std::floor(cap / delta) : per_context);
    w.window_tokens += n * (delta * growing * (growing + 1) / 2 + (per_context - growing) * cap);
    // All n contexts together hold i x delta tokens after call i, at most n windows.
    const double filling = std::min(total, delta > 0 ? std::floor(n * cap / delta) : total);
    w.held_tokens += delta * filling * (filling + 1) / 2 + (total - filling) * n * cap;
    w.new_tokens += total * delta;
    w.calls += total;
  }
  return w;
}

}  // namespace socsim::systems::llms
