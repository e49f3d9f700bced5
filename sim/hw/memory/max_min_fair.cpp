#include "sim/hw/memory/max_min_fair.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace socsim::hw {

namespace {
bool positive_finite(double x) { return x > 0.0 && std::isfinite(x); }
}  // namespace

void validate(const FairShareTree& tree) {
  if (tree.caps.size() != tree.parents.size()) {
    throw std::invalid_argument("fair-share tree: " + std::to_string(tree.caps.size()) + " caps but " +
                                std::to_string(tree.parents.size()) + " parents");
  }
  for (std::size_t i = 0; i < tree.caps.size(); ++i) {
    if (!positive_finite(tree.caps[i])) {
      throw std::invalid_argument("fair-share tree: node " + std::to_string(i) + " has capacity " +
                                  std::to_string(tree.caps[i]) + "; must be positive and finite");
    }
    const std::int32_t p = tree.parents[i];
    if (p != kRootParent && (p < 0 || static_cast<std::size_t>(p) >= i)) {
      throw std::invalid_argument("fair-share tree: node " + std::to_string(i) + " has parent " +
                                  std::to_string(p) + "; a parent must precede its child");
    }
  }
}

std::vector<double> max_min_fair_by_count(const FairShareTree& tree, double root_capacity,
                                          std::span<const std::uint32_t> flows_at) {
  validate(tree);
  if (!positive_finite(root_capacity)) {
    throw std::invalid_argument("max_min_fair: root capacity must be positive and finite");
  }
  const std::size_t n = tree.caps.size();
  if (flows_at.size() != n) throw std::invalid_argument("max_min_fair: one flow count per node expected");

  // The work arrays hold the root as node n, so every constraint is treated alike.
  const std::size_t root = n;
  auto up = [&](std::size_t i) -> std::size_t {
    return tree.parents[i] == kRootParent ? root : static_cast<std::size_t>(tree.parents[i]);
  };
  auto cap = [&](std::size_t v) { return v == root ? root_capacity : tree.caps[v]; };

  std::vector<double> rate(n, 0.0);
  std::vector<char> frozen(n);  // flows issued on the node have their final rate (or there are none)
  for (std::size_t i = 0; i < n; ++i) frozen[i] = flows_at[i] == 0;
  std::vector<double> used(n + 1);      // capacity held by frozen flows in the subtree
  std::vector<double> unfrozen(n + 1);  // number of still-rising flows in the subtree
  std::vector<double> fair(n + 1);      // level at which the node would be full
  std::vector<char> freeze(n + 1);

  double level = 0.0;
  // Each round freezes at least the flows under the tightest constraint, so at most n + 1 rounds.
  for (;;) {
    std::fill(used.begin(), used.end(), 0.0);
    std::fill(unfrozen.begin(), unfrozen.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      if (frozen[i]) used[i] = flows_at[i] * rate[i];
      else unfrozen[i] = flows_at[i];
    }
    // Children follow their parents, so one reverse pass sums every subtree.
    for (std::size_t i = n; i-- > 0;) {
      used[up(i)] += used[i];
      unfrozen[up(i)] += unfrozen[i];
    }
    if (unfrozen[root] == 0.0) break;

    // All rising flows sit at `level`; a node is full when they reach (cap - used) / unfrozen.
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t v = 0; v <= n; ++v) {
      if (unfrozen[v] == 0.0) continue;
      fair[v] = (cap(v) - used[v]) / unfrozen[v];
      next = std::min(next, fair[v]);
    }
    // Rounding can put a level a hair below the current one; rates never fall while filling.
    level = std::max(level, next);

    // Every node that is full now (ties within rounding included, so symmetric cases come out
    // exactly equal) freezes its whole subtree. Parents precede children: one forward pass.
    const double tolerance = level * 1e-12;
    for (std::size_t v = 0; v <= n; ++v) freeze[v] = unfrozen[v] > 0.0 && fair[v] <= level + tolerance;
    for (std::size_t i = 0; i < n; ++i) {
      freeze[i] = freeze[i] || freeze[up(i)];
      if (freeze[i] && !frozen[i]) {
        frozen[i] = 1;
        rate[i] = level;
      }
    }
  }
  return rate;
}

std::vector<double> max_min_fair(const FairShareTree& tree, double root_capacity,
                                 std::span<const std::uint32_t> flow_nodes) {
  std::vector<std::uint32_t> counts(tree.caps.size(), 0);
  for (std::uint32_t node : flow_nodes) {
    if (node >= counts.size()) {
      throw std::invalid_argument("max_min_fair: flow on unknown node " + std::to_string(node));
    }
    ++counts[node];
  }
  const std::vector<double> per_node = max_min_fair_by_count(tree, root_capacity, counts);
  std::vector<double> rates;
  rates.reserve(flow_nodes.size());
  for (std::uint32_t node : flow_nodes) rates.push_back(per_node[node]);
  return rates;
}

}  // namespace socsim::hw
