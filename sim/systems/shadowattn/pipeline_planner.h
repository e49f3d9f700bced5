#pragma once
// shadowAttn's head-wise pipeline planner (../shared/papers/shadowattn.md section 6, Algorithm 1),
// a pure function over latency tables. Each group (heads fused in one NPU launch) runs on the NPU
// lane; each of its heads then runs top-k and sparse attention (qkv) on the CPU. Lanes:
//   three lanes (the paper's model): NPU, top-k, qkv, each serial
//   shared_cpu: top-k and qkv on one serial CPU lane (one core): a head's top-k then its qkv
// Dependencies: npu(group of h) -> topk(h) -> qkv(h).
#include <cstdint>
#include <vector>

namespace socsim::systems::shadowattn {

struct HeadTimes {
  double topk = 0, qkv = 0;
};
struct PipelineInput {
  std::vector<std::vector<std::uint32_t>> groups;  // head indices per NPU launch
  std::vector<double> npu;                          // launch time per group
  std::vector<HeadTimes> heads;                     // per head index
  bool shared_cpu = false;
};
struct PipelinePlan {
  std::vector<std::uint32_t> npu_order;  // group indices
  std::vector<std::uint32_t> cpu_order;  // head indices (top-k and qkv in this order)
  double makespan = 0;
  // The planner's work: heads placed on the lane model (each a few scalar ops: two max, two adds,
  // a compare), trial placements and the final makespan check alike; what the online planner's
  // CPU time is charged from (shadowattn_system.cpp).
  std::uint64_t evaluations = 0;
};

// Makespan of an order under the lane model (throws std::invalid_argument for orders that are not
// permutations, or a CPU order that runs a head before its group's launch is ordered).
double pipeline_makespan(const PipelineInput& in, const std::vector<std::uint32_t>& npu_order,
                         const std::vector<std::uint32_t>& cpu_order);
// The same, adding the heads it places to `evaluations`.
double pipeline_makespan(const PipelineInput& in, const std::vector<std::uint32_t>& npu_order,
                         const std::vector<std::uint32_t>& cpu_order, std::uint64_t& evaluations);
// Groups in index order, each group's heads in index order.
PipelinePlan plan_in_order(const PipelineInput& in);
// Algorithm 1: greedy choice of the next group (the one whose heads' CPU plan ends first), and
// of the next head within it.
PipelinePlan plan_greedy(const PipelineInput& in);
// Every NPU order, and every CPU order consistent with it group by group (small n only).
PipelinePlan plan_brute_force(const PipelineInput& in);
// What the strategy uses: exact below `exact_up_to` groups and heads, else the greedy plan, never
// worse than in order (the better of the two).
PipelinePlan plan_pipeline(const PipelineInput& in, std::size_t exact_up_to = 0);

}  // namespace socsim::systems::shadowattn
