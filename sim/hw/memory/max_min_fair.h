#pragma once
// Max-min fair sharing of a capacity tree (progressive filling). Pure functions, no simulator: the
// DRAM model (dram_model.h) calls them on every flow arrival or departure, and they are tested on
// their own.
//
// The tree: node i has capacity caps[i] and parent parents[i] (kRootParent = directly under the
// root, whose capacity is passed separately because it changes with the number of active masters).
// A flow issued on node i is limited by i, every ancestor of i, and the root.
//
// Progressive filling: all unfrozen flows rise together; when some node (or the root) has no
// capacity left, every flow under it freezes at the current level; repeat until all are frozen.
// The result is the unique max-min fair allocation.
#include <cstdint>
#include <span>
#include <vector>

namespace socsim::hw {

inline constexpr std::int32_t kRootParent = -1;

struct FairShareTree {
  std::vector<double> caps;            // bytes/s per node, > 0
  std::vector<std::int32_t> parents;   // parent node, or kRootParent; parents[i] < i
};

// Throws std::invalid_argument if caps and parents differ in size, a cap is not positive and
// finite, or a parent does not precede its child (which also rules out cycles).
void validate(const FairShareTree& tree);

// Flows on the same node are interchangeable (they meet exactly the same constraints), so they
// get the same rate: the fair share can be computed from per-node counts alone, in O(nodes^2)
// whatever the number of flows. flows_at[i] = flows issued directly on node i. Returns the rate
// of one flow on each node (0 for nodes with no flow). root_capacity > 0.
std::vector<double> max_min_fair_by_count(const FairShareTree& tree, double root_capacity,
                                          std::span<const std::uint32_t> flows_at);

// Per-flow form: flow_nodes[k] is the node flow k is issued on; returns each flow's rate.
std::vector<double> max_min_fair(const FairShareTree& tree, double root_capacity,
                                 std::span<const std::uint32_t> flow_nodes);

}  // namespace socsim::hw
