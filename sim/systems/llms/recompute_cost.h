#pragma once
// The cost (seconds, or joules) of recomputing missing KV chunks of a context (LLMS §3.3), from
// profiled cold prefills plus the attention the recomputed tokens pay over the resident context.
//
// Recomputing n missing chunks is one forward pass over their tokens: the matmuls see the missing
// tokens only, so they cost what a cold prefill of that many tokens costs, but each missing token
// attends to every earlier position of the context, resident or recomputed (Figure 7). A cold
// prefill of t tokens attends over t(t+1)/2 query-key pairs; chunks late in a long context attend
// over far more. So
//   T_re(t, pairs) = T_cold(t) + per_pair x (pairs - t(t+1)/2)
// with T_cold piecewise linear through the profiled prefills (flat below the shortest: a few
// tokens cost what reading the weights costs) and per_pair the attention's cost per query-key
// pair, taken from the curvature of the long prefills (the exact quadratic's leading coefficient
// through the longest, one about half and one at most a quarter of it: the matmuls are linear in
// t, the attention's pairs grow as t^2/2). Past the longest
// prefill (the profile stopped at the SoC's memory) T_cold continues with that quadratic's linear
// part and the attention.
//
// Without the attention term (per_pair 0) a chunk at the end of a 4K-token Llama-2-7B context on
// the Jetson Orin NX would cost what one at its start costs; the simulated prefills say 2.3x
// (tests/unit/llms/recompute_cost_test.cpp).
#include <cstdint>
#include <vector>

namespace socsim::systems::llms {

class RecomputeCost {
 public:
  RecomputeCost() = default;
  // A cold cost linear in tokens: fixed + per_token x t for t >= 1 (hand cases, tests).
  static RecomputeCost linear(double fixed, double per_token, double per_pair = 0);
  // Cold prefills of `tokens` (ascending, distinct, > 0) cost `values`; at least two points.
  // per_pair from three long ones spanning a factor of 4 (0 when no such three, never negative):
  // the longest at most `pair_fit_tokens` (0: the longest of all) and two shorter.
  static RecomputeCost from_profile(std::vector<double> tokens, std::vector<double> values, double pair_fit_tokens = 0);

  // The pairs a run of `tokens` positions starting at position `start` attends over (causal).
  static double pairs_of(double start, double tokens) { return tokens * start + tokens * (tokens + 1) / 2; }

  // Recomputing `tokens` tokens whose queries see `pairs` query-key pairs in all; 0 for none.
  // Pairs below a cold prefill's (not a valid placement) count as a cold prefill's.
  double at(double tokens, double pairs) const;
  // A cold prefill of `tokens` (pairs t(t+1)/2).
  double cold(double tokens) const;

  double per_pair() const { return per_pair_; }
  double longest_profiled_tokens() const { return tokens_.empty() ? 0 : tokens_.back(); }

 private:
  std::vector<double> tokens_, values_;
  double per_pair_ = 0;
  // Past the longest prefill: tail_slope_ per token plus tail_pair_ per cold pair (the profile's
  // quadratic; a linear() cost continues its line).
  double tail_slope_ = 0, tail_pair_ = 0;
};

}  // namespace socsim::systems::llms
