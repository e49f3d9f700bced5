#pragma once
// Functional mode end to end: run the system's plan with real arithmetic (plan_forward.h) and the
// FP32 reference (reference_forward.h) side by side on the same weights and tokens, layer by
// layer, then both heads block by block of the vocabulary, and compare (accuracy.h).
//
// Truncation: with `layers` = N < L only the first N decoder layers are computed, then the final
// norm and the head on their output; the system and the reference are truncated alike, so the
// comparison stays like for like (the timing run still covers the whole model).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/functional/accuracy.h"
#include "sim/functional/forward_shape.h"
#include "sim/functional/plan_forward.h"
#include "sim/functional/synthetic_weights.h"
#include "sim/functional/weight_source.h"
#include "sim/runtime/data_driven.h"
#include "sim/runtime/job.h"
#include "sim/systems/llm_npu/outlier_calibration.h"
#include "sim/runtime/run_request.h"
#include "sim/systems/shadowattn/scale_calibration.h"
#include "sim/systems/system.h"

namespace socsim::functional {

// Progress of a functional run: (steps done, steps in all); a step is one decoder layer of both
// forwards or one block of the vocabulary through both heads.
using FunctionalProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

struct FunctionalOptions {
  std::filesystem::path weights_file;  // empty: synthetic weights from the run's seed
  std::uint64_t layers = 0;            // decoder layers computed; 0 = all
  SyntheticOptions synthetic;
  FunctionalProgress progress;         // optional (socsim run draws a bar on a terminal)
};

struct FunctionalOutcome {
  AccuracyMetrics metrics;
  std::uint64_t functional_layers = 0;
  kernels::Tensor system_hidden, reference_hidden;  // final-normed, [positions x hidden]
  std::map<std::string, std::string> attention;     // "unit/precision" -> attention kernel
  // shadowAttn's sparse prefill attention (else < 0): kept positions vs the FP32 top-k, and the
  // attention output's relative error (Frobenius) vs full FP32 attention on the same inputs.
  double topk_recall = -1, attention_rel_error = -1;
  // shadowattn with buckets: the offline scale calibration that centred the grid, its options,
  // and how many per-head estimations each bucket took (0 = the centre).
  std::optional<systems::shadowattn::CalibratedScales> scale_calibration;
  systems::shadowattn::ScaleCalibrationOptions scale_calibration_options;
  std::uint64_t scale_calibration_seed = 0;
  std::vector<std::uint64_t> bucket_use;
  bool scale_centre_oracle = false;  // shadowattn.scale_centre=oracle: no calibration, each layer's own mean
  // llm.npu with offline activation scales: the calibration's options, and the outliers each
  // shadowed group's input had per prefill chunk (PlanForward::shadow_outliers).
  std::optional<systems::llm_npu::OutlierCalibrationOptions> outlier_calibration;
  std::uint64_t outlier_calibration_seed = 0;
  std::map<PlanForward::OutlierKey, runtime::ShadowOutliers> shadow_outliers;
  std::map<runtime::HeadKey, std::size_t> head_buckets;  // shadowAttn (PlanForward::head_buckets)
  std::uint64_t split_matmuls = 0;                       // HeteroLLM (PlanForward::split_matmuls)
  // The system's final hidden state and logits that were NaN or infinite (its INT8/FP16 numerics
  // overflowed while the FP32 reference did not): the error metrics are then meaningless.
  std::uint64_t non_finite_hidden = 0, non_finite_logits = 0;
  std::vector<std::uint64_t> system_top1;  // the system's greedy token per position (head group g, sequence b: g * B + b)
};

// llm.npu's offline activation scales for the system's forward, when the plan has per-tensor W8A8
// jobs with offline scales: calibrated (systems/llm_npu/outlier_calibration.h) on seeded sequences
// of their own (seed outlier_calibration_seed(seed)) over `layers` layers (0 = all). Returns the
// calibration's options, or nothing when the plan needs none. `given`: a calibration already made
// with those options (run_functional_with_data calibrates before planning), used instead.
std::uint64_t outlier_calibration_seed(std::uint64_t seed);
std::optional<systems::llm_npu::OutlierCalibrationOptions> calibrate_offline_scales(PlanForward& system, const model::ModelConfig& model,
                                                                                    const runtime::Plan& plan, const WeightSource& weights,
                                                                                    std::uint64_t seed, std::uint64_t layers,
                                                                                    const systems::llm_npu::OutlierCalibration* given = nullptr);

// Test-time scaling's sample lengths from the system's greedy tokens `top1` (one per position,
// head group g and sequence b at g * B + b): each sequence stops at the first head group g <
// shape.decode whose token is one of `eos`, which leaves it g decode steps (group g's token is
// decode step g's input; the last step's token stops nothing); else shape.decode. Throws
// std::logic_error when top1 does not hold shape.positions() tokens.
std::vector<std::uint64_t> sample_decode_steps(const std::vector<std::uint64_t>& top1, const ForwardShape& shape,
                                               std::vector<std::uint64_t> eos);

// The comparison for a given plan and weight source; `layers` in [1, model.layers] (0 = all).
FunctionalOutcome compare_with_reference(const model::ModelConfig& model, const runtime::Plan& plan, const ForwardShape& shape,
                                         const WeightSource& weights, std::uint64_t seed, std::uint64_t layers,
                                         const FunctionalProgress& progress = {},
                                         const systems::llm_npu::OutlierCalibration* calibration = nullptr);

// `socsim run --mode functional`: plans the request with `system`, makes the weight source (a
// safetensors file is checked before anything is computed: config::ConfigError on bad input),
// runs the comparison and returns the report's `accuracy` object. With a workload, the first
// request's lengths are computed.
nlohmann::ordered_json run_functional(const runtime::RunRequest& request, systems::System& system, const FunctionalOptions& options);

// The same, with the quantities of the plan that functional mode measured on the data, for the
// timed run to use (runtime::RunRequest::data_driven); `data.summary` describes them.
struct FunctionalResult {
  nlohmann::ordered_json accuracy;
  runtime::DataDriven data;
};
FunctionalResult run_functional_with_data(const runtime::RunRequest& request, systems::System& system, const FunctionalOptions& options);

// A lower bound of the host bytes a functional run's activations take at once: the FP32
// reference's MLP outputs (gate and up, or up alone: rows x intermediate each) beside the residual
// streams of the system and the reference, a normalized copy and an attention output (rows x
// hidden each), all FP32, rows = sequences x (prompt + decode). A run whose bound alone passes the
// host memory limit is refused before any weight is made. (A double: no overflow.)
double activation_bytes_lower_bound(const model::ModelConfig& model, const ForwardShape& shape);

}  // namespace socsim::functional
