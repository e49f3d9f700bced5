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

// Max-min division of `capacity` among claimants with the `finite` demands (sorted here) and
// `unbounded` claimants with no limit of their own: the smallest demands are met in full, the rest
// share what is left equally. Returns the common level granted to the unsatisfied claimants.
double water_fill(double capacity, std::vector<double>& finite, std::size_t unbounded) {
  std::sort(finite.begin(), finite.end());
  double left = capacity;
  std::size_t remaining = finite.size() + unbounded;
  for (double d : finite) {
    const double share = left / static_cast<double>(remaining);
    if (d >= share) return share;
    left -= d;
    --remaining;
  }
  // The unbounded claimants (sorted last) take what is left, equally.
  if (unbounded > 0) return left / static_cast<double>(remaining);
  return std::numeric_limits<double>::infinity();  // every claimant satisfied
}

}  // namespace

std::vector<double> max_min_fair_by_count(const FairShareTree& tree, double root_capacity,
                                          std::span<const std::uint32_t> flows_at) {
  validate(tree);
  FairShareScratch scratch;
  std::vector<double> rate;
  max_min_fair_by_count(tree, root_capacity, flows_at, scratch, rate);
  return rate;
}

void max_min_fair_by_count(const FairShareTree& tree, double root_capacity, std::span<const std::uint32_t> flows_at,
                           FairShareScratch& w, std::vector<double>& rate) {
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

  // Bottom-up: what each subtree could absorb alone (its cap, unless its flows are all behind
  // tighter children). Children follow their parents, so one reverse pass suffices.
  w.child_demand.assign(n + 1, 0.0);
  w.active.assign(n + 1, 0);
  w.demand.assign(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    if (flows_at[i] > 0) w.active[i] = 1;
    if (!w.active[i]) continue;
    w.demand[i] = flows_at[i] > 0 ? tree.caps[i] : std::min(tree.caps[i], w.child_demand[i]);
    w.child_demand[up(i)] += w.demand[i];
    w.active[up(i)] = 1;
  }

  // Top-down: each node divides what it was granted max-min fairly among its active child
  // subtrees and its own flows (a memory controller arbitrates between ports, not between the
  // software streams behind one port). Parents precede children: one forward pass.
  w.grant.assign(n + 1, 0.0);
  w.level.assign(n + 1, 0.0);  // per-claimant level inside each node
  if (w.children.size() < n + 1) w.children.resize(n + 1);
  for (std::size_t v = 0; v <= n; ++v) w.children[v].clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (w.active[i]) w.children[up(i)].push_back(i);
  }
  // A node's own flows have no demand of their own (infinite): they share what its children
  // leave, after every finite claimant, exactly as water filling sorted demands would.
  auto divide = [&](std::size_t v, double granted) {
    w.finite.clear();
    for (std::size_t c : w.children[v]) w.finite.push_back(w.demand[c]);
    const std::size_t unbounded = v != root ? flows_at[v] : 0;
    w.level[v] = w.finite.empty() && unbounded == 0 ? 0.0 : water_fill(granted, w.finite, unbounded);
    for (std::size_t c : w.children[v]) w.grant[c] = std::min(w.demand[c], w.level[v]);
  };
  if (w.active[root]) divide(root, std::min(root_capacity, w.child_demand[root]));
  rate.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!w.active[i]) continue;
    divide(i, w.grant[i]);
    if (flows_at[i] > 0) rate[i] = w.level[i];
  }
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
