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

namespace {

// Max-min division of `capacity` among claimants with the given demands (infinity = no limit of
// its own): the smallest demands are met in full, the rest share what is left equally.
// Returns the common level granted to the unsatisfied claimants.
double water_fill(double capacity, std::vector<double> demands) {
  std::sort(demands.begin(), demands.end());
  double left = capacity;
  std::size_t remaining = demands.size();
  for (double d : demands) {
    const double share = left / static_cast<double>(remaining);
    if (d >= share) return share;
    left -= d;
    --remaining;
  }
  return std::numeric_limits<double>::infinity();  // every claimant satisfied
}

}  // namespace

std::vector<double> max_min_fair_by_count(const FairShareTree& tree, double root_capacity,
                                          std::span<const std::uint32_t> flows_at) {
  validate(tree);
  if (!positive_finite(root_capacity)) {
    throw std::invalid_argument("max_min_fair: root capacity must be positive and finite");
  }
  const std::size_t n = tree.caps.size();
  if (flows_at.size() != n) throw std::invalid_argument("max_min_fair: one flow count per node expected");

  // The work arrays hold the root as node n, so every node is treated alike.
  const std::size_t root = n;
  auto up = [&](std::size_t i) -> std::size_t {
    return tree.parents[i] == kRootParent ? root : static_cast<std::size_t>(tree.parents[i]);
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();

  // Bottom-up: what each subtree could absorb alone (its cap, unless its flows are all behind
  // tighter children). Children follow their parents, so one reverse pass suffices.
  std::vector<double> child_demand(n + 1, 0.0);
  std::vector<char> active(n + 1, 0);
  std::vector<double> demand(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    if (flows_at[i] > 0) active[i] = 1;
    if (!active[i]) continue;
    demand[i] = flows_at[i] > 0 ? tree.caps[i] : std::min(tree.caps[i], child_demand[i]);
    child_demand[up(i)] += demand[i];
    active[up(i)] = 1;
  }

  // Top-down: each node divides what it was granted max-min fairly among its active child
  // subtrees and its own flows (a memory controller arbitrates between ports, not between the
  // software streams behind one port). Parents precede children: one forward pass.
  std::vector<double> grant(n + 1, 0.0);
  std::vector<double> level(n + 1, 0.0);  // per-claimant level inside each node
  std::vector<std::vector<std::size_t>> children(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (active[i]) children[up(i)].push_back(i);
  }
  auto divide = [&](std::size_t v, double granted) {
    std::vector<double> demands;
    for (std::size_t c : children[v]) demands.push_back(demand[c]);
    if (v != root) demands.insert(demands.end(), flows_at[v], kInf);
    level[v] = demands.empty() ? 0.0 : water_fill(granted, std::move(demands));
    for (std::size_t c : children[v]) grant[c] = std::min(demand[c], level[v]);
  };
  if (active[root]) divide(root, std::min(root_capacity, child_demand[root]));
  std::vector<double> rate(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!active[i]) continue;
    divide(i, grant[i]);
    if (flows_at[i] > 0) rate[i] = level[i];
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
