#pragma once
// The system's forward pass, computed as its plan places it: every matmul at the precision of the
// job that runs it (linear.h), attention by the job's unit and precision (attention_exec.h), the
// prefill cut into the plan's chunks. Norms, RoPE, biases, activations and residual adds are FP32
// (they are FP32 on the CPU, and the units' FP16 versions of them are not the error we measure).
//
// Layer-major with teacher forcing: all tokens are known up front (forward_shape.h), so instead of
// running the whole model for the prompt and then again for each decode step, layer l is run for
// every prefill chunk and then every decode step's single row per sequence, each attending to
// layer l's KV cache as filled so far, before layer l + 1 starts. The arithmetic of every row is
// exactly that of prefill followed by incremental decode (a row's inputs at layer l are the same
// either way), but only one layer's weights and one layer's KV cache are alive at a time, and the
// reference (reference_forward.h) can walk the layers in step, sharing each layer's weights.
// Matmuls see all sequences' rows of a chunk or step at once (tokens x sequences rows, as the
// planned op); attention runs per sequence. Padding rows of a padded static-graph chunk are not
// computed: they change no real row.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/softmax/lut_exp.h"
#include "sim/functional/forward_shape.h"
#include "sim/functional/linear.h"
#include "sim/functional/plan_placement.h"
#include "sim/functional/weight_source.h"
#include "sim/model/model_config.h"
#include "sim/runtime/data_driven.h"
#include "sim/systems/llm_npu/outlier_calibration.h"
#include "sim/systems/shadowattn/calibration.h"

namespace socsim::functional {

// The head's input for one head group (forward_shape.h): final-normed rows, one per sequence, and
// the planned lm_head's precision and per-tensor activation scale.
struct HeadGroup {
  kernels::Tensor hidden;  // F32 [sequences x hidden]
  runtime::Precision precision = runtime::Precision::kFp32;
  // INT8 precisions: min-max scale over all real rows the planned lm_head multiplies (a static
  // graph's head covers the whole last chunk, not only its last row); else unset.
  std::optional<float> activation_scale;
};

class PlanForward {
 public:
  PlanForward(const model::ModelConfig& model, const runtime::Plan& plan, const ForwardShape& shape,
              const std::vector<std::int32_t>& ids, const WeightSource& weights);

  void run_layer(std::uint32_t layer, const LayerWeights& w);
  std::vector<HeadGroup> head_groups(const NormWeights& final_norm) const;
  // Attention kernels used, "unit/precision -> kernel", for the report.
  const std::map<std::string, std::string>& attention_used() const { return attention_used_; }
  // shadowAttn's sparse prefill attention (cg-sparse, cg-block-sparse, shadowattn): kept
  // positions against the FP32 Q.K^T top-k of the same k (hits / reference positions), and the
  // attention output against full FP32 attention on the same inputs (squared sums).
  struct SparseStats {
    double recall_hits = 0, recall_total = 0, diff_sq = 0, ref_sq = 0;
  };
  const SparseStats& sparse_stats() const { return sparse_; }
  // shadowAttn: the centre of the scale-bucket grid, from the offline scale calibration
  // (systems/shadowattn/scale_calibration.h); until set, each layer's own mean scales (the input's,
  // which no static graph could know).
  void set_bucket_centre(systems::shadowattn::ScalePair centre) { bucket_centre_ = centre; }
  // llm.npu: per-tensor W8A8 matmuls with offline scales use the calibrated ones (else each
  // input's own, leaving exactly outlier_channels out of range), and the outliers each shadowed
  // group's input had in each prefill chunk are counted.
  void set_outlier_calibration(systems::llm_npu::OutlierCalibration c) { outlier_calibration_ = std::move(c); }
  // (chunk, layer, group's first matmul) -> outlier channels of that chunk's input.
  using OutlierKey = std::tuple<std::uint64_t, std::uint32_t, std::string>;
  const std::map<OutlierKey, runtime::ShadowOutliers>& shadow_outliers() const { return shadow_outliers_; }
  // shadowAttn: the bucket each (prefill chunk, layer, head of the plan's estimation op: sequence
  // x heads + head) took, from its measured scales.
  const std::map<runtime::HeadKey, std::size_t>& head_buckets() const { return head_buckets_; }
  // HeteroLLM: matmuls computed as two parts, each with its own unit's kernel and precision.
  std::uint64_t split_matmuls() const { return split_matmuls_; }
  // Per-head estimations that went to each bucket (index as bucket_grid's: 0 is the centre).
  const std::vector<std::uint64_t>& bucket_use() const { return bucket_use_; }
  // Decode steps of one layer run their matmuls together, up to this many rows: a step's matmuls
  // read only the layer's input rows, which the previous layer wrote for every step, so only
  // attention (each step reads the keys and values the steps before it appended) runs step by
  // step. Each row's arithmetic is the same whatever the rows beside it (linear.h's
  // row_independent), so the numbers are those of one step at a time; the weights are read once
  // per batch instead of once per step.
  static constexpr std::uint64_t kBatchRows = 256;
  // Rows a batch of decode steps' matmuls may have (default kBatchRows; 1 runs every step alone,
  // as the tests compare). Any value gives the same numbers.
  void set_decode_batch_rows(std::uint64_t rows) { batch_rows_ = rows; }
  // Times a layer's matmuls ran (over all layers so far): a batch of decode steps counts once.
  std::uint64_t matmul_batches() const { return matmul_batches_; }

 private:
  struct Segment {
    model::Phase phase;
    std::uint64_t step, p0, rows;
  };
  class LayerState;
  // Whether an input is quantized with its own min-max scale at this placement (per-tensor W8A8).
  static bool min_max_input(const OpPlacement& p);
  // Whether decode steps may run this matmul together: a row_independent precision, per-tensor
  // W8A8 with min-max scales (quantized step by step, matmul) or with llm.npu's profiled scale.
  bool batchable(const Segment& seg, const OpPlacement& p, std::uint32_t layer, const char* name) const;
  // llm.npu's profiled scale for the matmuls of `group` (offline_scale's), or null: none for
  // this layer, or the group's placement is not per-tensor W8A8 with outlier handling.
  const systems::llm_npu::GroupScale* profiled_scale(const Segment& seg, std::uint32_t layer, const char* group) const;
  // Segments [first, end) whose matmuls run as one: consecutive decode steps whose matmuls all
  // have the same placement, a batchable one, and no split between units; else first + 1.
  std::size_t batch_end(std::uint32_t layer, std::size_t first) const;
  // Segments [first, last) of batch_end through one layer: norms, matmuls and activations over all
  // their rows at once (the placements of segments_[first]), attention segment by segment in order.
  void run_segments(LayerState& st, std::size_t first, std::size_t last);
  // One segment's attention: its q, k, v rows (sequence-major, after the projections' biases) in,
  // its attention output rows out; appends its keys and values to the layer's cache.
  void attend(LayerState& st, const Segment& seg, const float* q_rows, const float* k_rows, const float* v_rows, float* attn_rows);
  std::optional<float> offline_scale(const Segment& seg, std::uint32_t layer, const char* group, const kernels::Tensor& x);
  // A decoder matmul as the plan runs it, split between units where the plan splits it.
  kernels::Tensor matmul(const Segment& seg, std::uint32_t layer, const char* name, Linear& whole, const kernels::Tensor& weight,
                         const kernels::Tensor& x, bool down, std::optional<float> scale);

  model::ModelConfig model_;
  PlanPlacement placement_;
  ForwardShape shape_;
  std::vector<Segment> segments_;
  std::vector<float> x_;  // residual stream [sequences * tokens x hidden]
  kernels::LutExpTable lut_;
  std::map<std::string, std::string> attention_used_;
  SparseStats sparse_;
  bool buckets_enabled_ = true;
  std::uint32_t buckets_ = 9;
  double bucket_step_ = 0.5;
  std::optional<systems::shadowattn::ScalePair> bucket_centre_;
  std::vector<std::uint64_t> bucket_use_;
  std::optional<systems::llm_npu::OutlierCalibration> outlier_calibration_;
  std::map<OutlierKey, runtime::ShadowOutliers> shadow_outliers_;
  std::map<runtime::HeadKey, std::size_t> head_buckets_;
  std::uint64_t split_matmuls_ = 0;
  std::uint64_t batch_rows_ = kBatchRows, matmul_batches_ = 0;
  std::uint64_t step_rows_ = 0;  // rows per step of the batch run_segments is running (0: one segment)
};

}  // namespace socsim::functional
