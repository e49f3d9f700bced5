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
// Johnson's rule on the groups as two-stage jobs (a, b) = (NPU time, CPU time): the groups with
// a < b first by increasing a, then the rest by decreasing b; the CPU runs groups in that order.
//  - shared_cpu: b = the group's top-k + qkv, heads in index order. This is the optimum: the CPU
//    is one machine taking each head once its group's launch ends, so the problem is the
//    two-machine flow shop F2||Cmax with the group as the job (any work-conserving CPU order of
//    heads released together ends at the same time, and interleaving groups cannot end earlier
//    than serving them in release order), which Johnson's rule solves exactly.
//  - three lanes: Campbell-Dudek-Smith, Johnson's rule on the two surrogate problems (npu, qkv)
//    and (npu + topk, topk + qkv), group sums; a group's heads by Johnson's rule on (topk, qkv);
//    the better of the two. A heuristic (the three-stage flow shop is NP-hard).
PipelinePlan plan_johnson(const PipelineInput& in);
// Every NPU order, and every CPU order consistent with it group by group (small n only).
PipelinePlan plan_brute_force(const PipelineInput& in);
// Which planner the strategy runs (shadowattn.planner).
enum class PlannerKind {
  kPaper,  // Algorithm 1 alone, as the paper gives it
  kBest,   // exhaustive when groups and heads <= exact_up_to; else the best of Algorithm 1,
           // Johnson's rule (plan_johnson) and in-order: never worse than any of them, exact with
           // one shared CPU lane
};
// What the strategy uses; `evaluations` counts every plan it computed.
PipelinePlan plan_pipeline(const PipelineInput& in, PlannerKind kind = PlannerKind::kBest, std::size_t exact_up_to = 0);

}  // namespace socsim::systems::shadowattn
