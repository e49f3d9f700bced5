#pragma once
// The jobs a partition becomes, and the real-execution profiler that times them (HeteroLLM 4.3's
// profiler in its real-execution mode: each candidate runs on an idle simulated SoC, its GPU and
// NPU parts concurrently, so they share DRAM as they will in the plan).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/field_hash.h"
#include "sim/core/simulator.h"
#include "sim/hw/soc.h"

#include "sim/hw/soc_spec.h"
#include "sim/model/graph_builder.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"
#include "sim/runtime/lowering/lowering_cache.h"
#include "sim/systems/heterollm/partition_solver.h"

namespace socsim::systems::heterollm {

// The jobs of a partition of a group of sibling matmuls (ones sharing an input: q/k/v, gate/up,
// or a single matmul), solved as one matmul over their concatenated output columns (the order of
// the group): a row cut gives the GPU the last `gpu_cols` of them. NPU pieces in order (each one
// graph call over every op with NPU columns), then the GPU part (one job); no deps. Per op, the
// NPU's first piece (or the GPU part when the NPU has none of its columns) keeps the op's name:
// functional mode computes the op unsplit with that job's unit and precision (the split is
// exact: every output element is one part's dot product). The others are named
// "<op>.npu_piece<i>" and "<op>.gpu_part".
std::vector<runtime::Job> partition_jobs(const Partition& p, const std::vector<model::GraphOp>& group);

class PartitionProfiler {
 public:
  PartitionProfiler(const hw::SocSpec& soc, const model::ModelConfig& model)
      : soc_(soc), model_(model), lowering_(model_, soc_.npu) {}
  // The lowering cache refers to this object's own copies.
  PartitionProfiler(const PartitionProfiler&) = delete;
  PartitionProfiler& operator=(const PartitionProfiler&) = delete;
  PartTimes time(const Partition& p);
  // time() runs each profile on a simulated SoC kept across runs (rebuilt every kRunsPerSoc), from
  // the time the last one ended; false: a freshly built SoC for each (tests compare the two).
  static constexpr std::uint32_t kRunsPerSoc = 64;
  void set_reuse_soc(bool on) { reuse_soc_ = on; }
  // Lower bounds of time(p)'s parts: the GPU part alone and the NPU pieces each alone, summed (a
  // part sharing DRAM with the other only slows; the pieces run back to back on an NPU that
  // carries nothing from one graph call to the next). Each distinct part is simulated once.
  PartTimes alone(const Partition& p);
  // A lower bound of alone(p) that simulates nothing. The GPU part: one submission, then its
  // kernels back to back on the in-order queue, each taking the longer of its arithmetic and its
  // own DRAM traffic at the GPU port's cap (what it cannot beat alone). Each NPU piece: its graph
  // call, then its lowered steps' work on the busiest engine (HVX context-cycles over the
  // contexts, HMX cycles over the units, DMA set-up and bytes at the DMA path's cap). The solver
  // takes it first and simulates parts alone only where it could still win (llama-3-8b at batch
  // 16: 3,900 parts alone -> about 160).
  PartTimes coarse(const Partition& p);
  std::size_t runs() const { return cache_.size(); }
  static constexpr std::size_t kFactsSlots = 8192;  // shapes whose answers are kept (facts() below)
  // Each part's DRAM traffic in bytes, as alone() runs it (the GPU part's kernels; the NPU
  // pieces', summed): what the step context shares DRAM by (step_context.h).
  struct PartBytes {
    double gpu = 0, npu = 0;
    // Each part's traffic rate alone (bytes/s): its flows go at their paths' caps beside the
    // compute (a GPU kernel's flow at the GPU port's; the NPU's as npu_dram_traffic).
    double gpu_rate = 0, npu_rate = 0;
  };
  PartBytes bytes(const Partition& p);
  // The op's GPU kernels as the host submits them (a kernel's buffers beyond max_allocation each
  // a submission), each one's time on the queue alone: the longer of its arithmetic and its own
  // DRAM traffic at the GPU port's cap (what it cannot beat). coarse()'s GPU part and the step
  // context (step_context.h) are built from these.
  std::vector<Tick> gpu_queue_times(const model::OpDesc& op, const kernels::AttentionShape* attention);
  void gpu_queue_times(const model::OpDesc& op, const kernels::AttentionShape* attention, std::vector<Tick>& out);  // into `out`
  // The graph call of an NPU piece of `rows` x `k` x `cols` as the NPU runs it: the call's fixed
  // cost and a dispatch per node of the piece's lowered op (part of its profiled time).
  Tick npu_call(std::uint64_t rows, std::uint64_t k, std::uint64_t cols);

 private:
  const runtime::NpuOpWork& npu_piece(std::uint64_t rows, std::uint64_t k, std::uint64_t cols);  // a piece's lowering (cached)
  Tick npu_call_of(const runtime::NpuOpWork& lowered) const;
  double gpu_flow_rate() const;  // bytes/s a GPU kernel's flow moves at alone
  Tick npu_alone(const Partition& p);  // alone()'s NPU part: the pieces each run alone, summed
  Tick npu_piece_bound(std::uint64_t rows, std::uint64_t k, std::uint64_t cols);  // coarse()'s, per piece

  hw::SocSpec soc_;  // copies: a system keeps its profiler across plans
  model::ModelConfig model_;
  // The SoC time() runs profiles on. A profile starts with every unit idle, no DRAM flow and no
  // event pending (the last run ended so), and such a run of the GPU and NPU is a pure function of
  // its work, whatever the time it starts at (the premise of replaying runs alone,
  // npu_alone_replay.h): the times it measures from its start are a fresh SoC's. It holds for
  // what a profile runs: a GPU part and NPU pieces, fast sync, no hand-over, no CPU job (a CPU
  // cluster busy within its idle threshold would skip its wake-up, cpu_cluster.h; a GPU drained by
  // a non-fast sync would pay its restart). Building a SoC for each of them (its CPU clusters'
  // ports and cores, the DRAM model, the NPU) was 50 M of hetero-tensor llama-3-8b b1's 651 M
  // instructions. Rebuilt every kRunsPerSoc runs, so what units keep of past runs (statistics,
  // busy intervals, lingering waiters) and the clock's magnitude stay bounded, and after a run
  // that threw. The simulator outlives the SoC built on it (declared first, destroyed last).
  std::unique_ptr<Simulator> profile_sim_;
  std::unique_ptr<hw::Soc> profile_soc_;
  std::uint32_t profile_soc_runs_ = 0;
  bool reuse_soc_ = true;
  // What a run's time depends on (the rows of a GPU-only part are its gpu_rows).
  struct ProfileKey {
    std::uint64_t k = 0, npu_cols = 0, gpu_rows = 0, gpu_cols = 0;
    bool npu = false;
    std::vector<std::uint64_t> pieces;
    auto operator<=>(const ProfileKey&) const = default;
  };
  std::map<ProfileKey, PartTimes> cache_;
  // What the solver asks of one part's shape (a piece's graph call and bound, its traffic; a GPU
  // part's coarse time and bytes), per shape: it asks for each of a step's candidates at every
  // pass of its search (llama-3-8b's decode: ~60,000 lookups of ~1,500 shapes), and each answer
  // follows from the lowering alone. Values, not the lowering's references: the lowering cache
  // may be cleared between runs (Executor::bound_lowering_cache).
  struct Shape {
    std::uint64_t rows = 0, k = 0, cols = 0;
    bool operator==(const Shape&) const = default;
  };
  struct ShapeFacts {
    std::optional<Tick> npu_call, npu_bound, gpu_coarse;
    // alone()'s answers for the shape: a GPU-only part, an NPU part of one piece (time()'s, found
    // here without building its key: the solver asks them of every candidate it bounds).
    std::optional<Tick> gpu_alone, npu_piece_alone;
    std::optional<double> gpu_bytes;
    bool npu_traffic_known = false;
    double npu_traffic_bytes = 0, npu_traffic_seconds = 0;
  };
  // The shape's entry (empty the first time), valid until the next call. A direct-mapped table of
  // kFactsSlots: a shape takes the slot its hash picks, evicting the one there (whose answers are
  // asked of the lowering again if it comes back). A map grown per new shape made runs with a fine
  // row_align slower and larger (row_align 1: an LM head's ~150,000 column splits, nearly every
  // one new, 42 MB more and 10-25% slower); this costs no allocation past the first and ~1 MB.
  ShapeFacts& facts(std::uint64_t rows, std::uint64_t k, std::uint64_t cols);
  struct FactsSlot {
    Shape shape;
    bool used = false;
    ShapeFacts facts;
  };
  std::vector<FactsSlot> facts_;  // kFactsSlots once asked
  std::vector<Tick> scratch_;  // coarse()'s kernel times
  runtime::lowering::LoweringCache lowering_;  // shared by every candidate's run: each op lowered once
};

}  // namespace socsim::systems::heterollm
