#pragma once
// Max-min fair sharing of a capacity tree (progressive filling). Pure functions, no simulator: the
// DRAM model (dram_model.h) calls them on every flow arrival or departure, and they are tested on
// their own.
//
// The tree: node i has capacity caps[i] and parent parents[i] (kRootParent = directly under the
// root, whose capacity is passed separately because it changes with the number of active masters).
// A flow issued on node i is limited by i, every ancestor of i, and the root.
//
// Hierarchical max-min fairness: the root's capacity is divided max-min fairly among the masters
// that have traffic (each limited by what its subtree can absorb), each master's share among its
// child ports and its own flows, and so on down. A memory controller arbitrates between ports,
// so a processor streaming with four threads does not get four times the share of one streaming
// with one (HeteroLLM 3.3: GPU and NPU together reach ~60 GB/s, ~30 each). Flows on one node
// share it equally.
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

// Work arrays of max_min_fair_by_count, kept between calls by a caller that recomputes often (the
// DRAM model does on every flow start and end): no allocation per call once they have grown.
struct FairShareScratch {
  std::vector<double> child_demand, demand, grant, level, finite;
  std::vector<char> active;
  std::vector<std::vector<std::size_t>> children;
};
// The same as above into `rate` (resized to the node count), for a tree already validated.
void max_min_fair_by_count(const FairShareTree& tree, double root_capacity, std::span<const std::uint32_t> flows_at,
                           FairShareScratch& scratch, std::vector<double>& rate);

// Per-flow form: flow_nodes[k] is the node flow k is issued on; returns each flow's rate.
std::vector<double> max_min_fair(const FairShareTree& tree, double root_capacity,
                                 std::span<const std::uint32_t> flow_nodes);

}  // namespace socsim::hw
