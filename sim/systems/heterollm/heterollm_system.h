#pragma once
// HeteroLLM (../shared/papers/heterollm.md): W4A16 inference on the GPU and the NPU, the CPU as
// control plane.
//   hetero-layer:  each matmul whole on the unit the profiler finds faster (T_npu + T_sync +
//                  T_copy against T_gpu); decode entirely on the GPU (the paper's rule).
//   hetero-tensor: each matmul partitioned by the solver (partition_solver.h) in prefill (row,
//                  sequence, multi-sequence, hybrid cuts) and in decode (row cuts that use both
//                  units' DRAM bandwidth); the two parts run concurrently and the next op waits
//                  for both.
// Reconstructions (the paper's layer-level text is lost), labelled as such in README.md:
//   - Home units. Non-matmul ops (norms, RoPE, attention, softmax, activations, residuals) run on
//     the phase's home unit: prefill the NPU (NPU-dominant; in static graphs of the prompt piped
//     to a multiple of seq_align, consecutive whole-NPU ops fused into one graph), decode the GPU
//     (GPU-dominant). `prefill_home=gpu` puts prefill's on the GPU (shadowAttn's survey has
//     HeteroLLM attention on the GPU). A matmul part on the other unit pays T_sync + T_copy.
//   - Sibling matmuls sharing an input (q/k/v, gate/up) are partitioned together, as one matmul
//     over their concatenated columns: one NPU graph call and one synchronization per group.
//   - Decode NPU matmuls stay W4A16 (the paper's footnote on the NPU's decode data type is garbled).
//   - Where the GPU is home the step's matmul groups are decided together, each the candidate
//     whose step ends first given the others' (step_context.h: the host submitting every kernel,
//     stopped by a part on the NPU), starting from the fastest alone (the paper's choice).
// Options (`--set heterollm.<key>=...`): fast_sync (true), standard_lengths (32 ... 1024),
// row_align (256), seq_align (32), prefill_home (npu), profiler (real | predict: the NPU by a
// regression tree over shapes, the GPU at gpu_tflops, default 1), force_split (false: split
// every matmul that can be, for tests and ablations), explain (false: print each solver decision
// on stderr; the decisions are always in system_info).
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "sim/runtime/decode_step_copy.h"
#include "sim/systems/heterollm/partition_jobs.h"
#include "sim/systems/heterollm/partition_solver.h"
#include "sim/systems/heterollm/prediction_profiler.h"
#include "sim/systems/system.h"

namespace socsim::systems {

namespace heterollm {

struct Options {
  bool fast_sync = true;
  bool explain = false;
  bool prefill_npu_home = true;
  bool force_split = false;
  bool predict = false;     // profiler: real (run every candidate) | predict (regression tree)
  double gpu_flops = 1e12;  // prediction mode's sustained GPU rate
  std::vector<std::uint64_t> standard = {32, 64, 128, 256, 512, 1024};
  std::uint64_t row_align = 256, seq_align = 32;
  bool seq_align_set = false;  // given (--set or a spec): what it does to a prompt is then said
};

// The end of the group of sibling matmuls starting at ops[i] (consecutive, same rows and input
// width: they share their input), and their concatenated columns in `n`.
std::size_t sibling_end(const std::vector<model::GraphOp>& ops, std::size_t i, std::uint64_t& n);

// `max_length`, when > 0, bounds heterollm.standard_lengths (the model's window: a graph longer
// than any prompt can be is never used, and planning one costs minutes).
Options read_options(config::Section& root, std::uint64_t max_length = 0);

}  // namespace heterollm

class HeteroLlm final : public System {
 public:
  explicit HeteroLlm(bool tensor_level) : tensor_(tensor_level) {}
  std::string id() const override { return tensor_ ? "hetero-tensor" : "hetero-layer"; }
  void configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& model) override;
  runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) override;
  runtime::SyncPolicy sync_policy() const override;
  bool decode_windows() const override { return true; }  // decode steps wait for the sampled token
  double weight_bits() const override { return 4.5; }

  // The solver's decision for one matmul (cached per phase, shape and sequence length).
  // `npu_rows`: the rows an unsplit NPU op runs (its home graph's shape); 0 = the standard covers.
  const heterollm::Partition& decide(const hw::SocSpec& soc, const model::ModelConfig& model, bool decode, std::uint64_t m,
                                     std::uint64_t k, std::uint64_t n, std::uint64_t npu_rows);
  const heterollm::Options& options() const { return options_; }

 private:
  bool tensor_;
  heterollm::Options options_;
  using DecisionKey = std::tuple<bool, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>;  // decode, m, k, n, npu_rows
  std::map<DecisionKey, heterollm::Partition> decisions_;
  // A candidate's time in its step (step_context.h).
  using StepCost = std::function<Tick(const heterollm::Partition&)>;
  // The solver's choice for one matmul group: alone (the paper's T_total) or, given `in_step`, in
  // its step. `say`: print it (heterollm.explain), as `shown` when given (the step's choice).
  heterollm::Partition solve_group(const hw::SocSpec& soc, const model::ModelConfig& model, const DecisionKey& key, const StepCost* in_step,
                                   bool say, const heterollm::Partition* shown = nullptr);
  // Where the GPU is home: decides the step's undecided matmul groups together, each the best in
  // the step given the others' (step_context.h), and caches them for decide().
  void decide_step(const hw::SocSpec& soc, const model::ModelConfig& model, const std::vector<model::GraphOp>& real,
                   const std::vector<model::GraphOp>& padded);
  // A candidate's parts each alone, as its step costs them (the predictor's times, or the real
  // profiler's parts run alone).
  heterollm::PartTimes step_part_times(const heterollm::Partition& c);
  bool seq_align_said_ = false;  // what a hand-set seq_align does to the prompt was said (once per run)
  std::unique_ptr<heterollm::PartitionProfiler> profiler_;    // real execution, its cache kept
  std::unique_ptr<heterollm::PredictionProfiler> predictor_;  // trained on first use
  // The decode step copied into later steps (decode_step_copy.h), kept across the plans of a
  // request's decode windows (each planned a step of its own: 8 of 64 at the default window),
  // with the partitions its step counts; made again by each request's first plan.
  struct StepTemplate {
    const hw::SocSpec* soc;
    const model::ModelConfig* model;
    std::uint64_t prompt, batch;
    runtime::DecodeStepCopier copier;
    std::map<std::string, std::uint64_t> kinds;
  };
  std::optional<StepTemplate> step_template_;
};

void register_heterollm(SystemRegistry& r);

}  // namespace socsim::systems
