#include "sim/functional/functional_run.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "kernels/quant/int8_quant.h"
#include "kernels/tensor/kernel_time.h"
#include "kernels/tensor/non_finite.h"
#include "sim/config/config_error.h"
#include "sim/core/host_memory.h"
#include "sim/core/run_progress.h"
#include "sim/functional/head_batches.h"
#include "sim/functional/linear.h"
#include "sim/functional/plan_forward.h"
#include "sim/functional/reference_forward.h"
#include "sim/functional/safetensors_weights.h"
#include "sim/functional/tensor_util.h"
#include "sim/systems/llm_npu/outlier_plan.h"

namespace socsim::functional {

using kernels::Tensor;
using runtime::Precision;

namespace {

// Vocabulary rows per head block: 8192 x hidden FP32 (28 MiB at hidden 896) plus its quantized
// forms, large enough that the GEMMs stay efficient.
constexpr std::uint64_t kHeadBlock = 8192;
// The calibration tokens' seed is the run's seed with these bits flipped: a draw of its own.
constexpr std::uint64_t kScaleCalibrationSeed = 0x5CA1E5C0FFEEull;
constexpr std::uint64_t kOutlierCalibrationSeed = 0x0071E2CA11B0ull;

// llm.npu's per-tensor W8A8 jobs with offline activation scales: the options of their calibration.
std::optional<systems::llm_npu::OutlierCalibrationOptions> outlier_calibration_of(const runtime::Plan& plan, std::uint64_t layers) {
  const bool offline = std::any_of(plan.jobs.begin(), plan.jobs.end(), [](const runtime::Job& j) {
    return j.precision == Precision::kW8A8 && j.outliers != runtime::OutlierHandling::kMinMax;
  });
  if (!offline) return std::nullopt;
  systems::llm_npu::OutlierCalibrationOptions o;
  o.tokens = plan.info.value("chunk", std::uint64_t{256});
  o.layers = layers;
  o.outlier_channels = plan.info.value("outlier_channels", std::uint64_t{10});
  o.hot_channels = plan.info.value("hot_channels", 0.03);
  return o;
}

// Per-tensor INT8 scale of the whole head (a block's own max would be a per-block scale).
float head_weight_scale(const WeightSource& weights, std::uint64_t vocab) {
  float mx = 0;
  for (std::uint64_t v0 = 0; v0 < vocab; v0 += kHeadBlock) {
    const Tensor w = weights.lm_head_rows(v0, std::min(kHeadBlock, vocab - v0));
    mx = std::max(mx, kernels::max_abs(w.data<float>()));
  }
  return mx > 0 ? mx / 127.0f : 1.0f;
}

// Data beyond what the numerics represent is bad input (the weights' values), not an internal
// error: the message names the weights, where it happened and what to change.
[[noreturn]] void out_of_range(const WeightSource& weights, const std::string& where, const std::string& what) {
  throw config::ConfigError({"command line", 0, 0}, "--mode functional",
                            where + ": " + what + " (weights '" + weights.describe() + "'): " + kernels::kNonFiniteDataHint);
}

}  // namespace

std::uint64_t outlier_calibration_seed(std::uint64_t seed) { return seed ^ kOutlierCalibrationSeed; }

std::optional<systems::llm_npu::OutlierCalibrationOptions> calibrate_offline_scales(PlanForward& system, const model::ModelConfig& model,
                                                                                    const runtime::Plan& plan, const WeightSource& weights,
                                                                                    std::uint64_t seed, std::uint64_t layers,
                                                                                    const systems::llm_npu::OutlierCalibration* given) {
  auto options = outlier_calibration_of(plan, layers == 0 ? model.layers : layers);
  // llm.npu profiled its activation scales offline: on sequences of their own, never the input.
  if (options) system.set_outlier_calibration(given ? *given : systems::llm_npu::calibrate_outliers(model, weights, outlier_calibration_seed(seed), *options));
  return options;
}

FunctionalOutcome compare_with_reference(const model::ModelConfig& model, const runtime::Plan& plan, const ForwardShape& shape,
                                         const WeightSource& weights, std::uint64_t seed, std::uint64_t layers,
                                         const FunctionalProgress& progress, const systems::llm_npu::OutlierCalibration* calibration) {
  if (layers == 0) layers = model.layers;
  if (layers > model.layers) throw std::invalid_argument("functional layers exceed the model's");
  const std::uint64_t steps = layers + (model.vocab + kHeadBlock - 1) / kHeadBlock;
  std::uint64_t done = 0;
  const auto step = [&] {
    if (progress) progress(++done, steps);
  };
  const std::vector<std::int32_t> ids = draw_tokens(shape, model.vocab, seed);
  PlanForward system(model, plan, shape, ids, weights);
  FunctionalOutcome out;
  if (plan.info.contains("buckets_enabled") && plan.info["buckets_enabled"].get<bool>() && plan.info.value("scale_centre", "") != "oracle") {
    // shadowAttn's graphs were built offline around the calibrated mean scales: calibrate on
    // token sequences of their own (never the input), in the plan's chunks, over the layers the
    // run computes.
    out.scale_calibration_options.chunk = plan.info.value("chunk", std::uint64_t{256});
    out.scale_calibration_options.layers = layers;
    out.scale_calibration_seed = seed ^ kScaleCalibrationSeed;
    out.scale_calibration = systems::shadowattn::calibrate_scales(model, weights, out.scale_calibration_seed, out.scale_calibration_options);
    system.set_bucket_centre(out.scale_calibration->mean);
  }
  out.outlier_calibration = calibrate_offline_scales(system, model, plan, weights, seed, layers, calibration);
  out.outlier_calibration_seed = outlier_calibration_seed(seed);
  ReferenceForward reference(model, shape, ids, weights);
  for (std::uint32_t l = 0; l < layers; ++l) {
    progress_functional(l + 1, layers);
    check_host_memory();  // --max-host-memory (the caller's ScopedHostMemoryLimit), layer by layer
    const LayerWeights w = weights.layer(l);  // the only layer alive: shared by both runs
    check_host_memory();
    try {
      system.run_layer(l, w);
    } catch (const kernels::NonFiniteData& e) {
      out_of_range(weights, "the system's layer " + std::to_string(l), e.what());
    }
    {
      const kernels::ScopedKernelTime timed(kernels::KernelClock::kReference);  // the accuracy baseline's arithmetic
      reference.run_layer(w);
    }
    step();
  }

  const NormWeights final_norm = weights.final_norm();
  const std::vector<HeadGroup> groups = system.head_groups(final_norm);
  out.bucket_use = system.bucket_use();
  out.shadow_outliers = system.shadow_outliers();
  out.head_buckets = system.head_buckets();
  out.split_matmuls = system.split_matmuls();
  out.scale_centre_oracle = plan.info.value("scale_centre", "") == "oracle";
  out.functional_layers = layers;
  out.attention = system.attention_used();
  const auto& sp = system.sparse_stats();
  if (sp.recall_total > 0) out.topk_recall = sp.recall_hits / sp.recall_total;
  if (sp.ref_sq > 0) out.attention_rel_error = std::sqrt(sp.diff_sq / sp.ref_sq);
  out.reference_hidden = reference.final_hidden(final_norm);
  if (const auto n = count_non_finite(out.reference_hidden)) {
    out_of_range(weights, "the FP32 reference", std::to_string(n) + " non-finite values in its final hidden state");
  }
  const std::uint64_t B = shape.sequences, h = model.hidden, positions = shape.positions();
  out.system_hidden = f32_matrix(positions, h);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::memcpy(out.system_hidden.data<float>().data() + g * B * h, groups[g].hidden.data<float>().data(), B * h * sizeof(float));
  }

  std::optional<float> w_scale;
  if (std::any_of(groups.begin(), groups.end(), [](const HeadGroup& g) { return g.precision == Precision::kW8A8; })) {
    w_scale = head_weight_scale(weights, model.vocab);
  }
  const HeadBatches head_batches(groups, B, h);  // consecutive groups share a multiplication (head_batches.h)
  LogitsComparison logits(positions);
  for (std::uint64_t v0 = 0; v0 < model.vocab; v0 += kHeadBlock) {
    const std::uint64_t cols = std::min(kHeadBlock, model.vocab - v0);
    const Tensor w = weights.lm_head_rows(v0, cols);
    Linear head(w, Linear::Orientation::kOutIn, w_scale);
    const Tensor ref = [&] {
      const kernels::ScopedKernelTime timed(kernels::KernelClock::kReference);
      return head.apply(out.reference_hidden, Precision::kFp32);
    }();
    const Tensor sys = [&] {
      try {
        return head_batches.logits(head, cols);
      } catch (const kernels::NonFiniteData& e) {
        out_of_range(weights, "the system's output head", e.what());
      }
    }();
    logits.add_block(sys.data<float>().data(), ref.data<float>().data(), cols, v0);
    step();
    progress_functional_logits(v0 / kHeadBlock + 1, (model.vocab + kHeadBlock - 1) / kHeadBlock);  // minutes at long decodes
  }
  if (logits.reference_non_finite() > 0) {
    out_of_range(weights, "the FP32 reference", std::to_string(logits.reference_non_finite()) + " non-finite logits");
  }
  out.non_finite_hidden = count_non_finite(out.system_hidden);
  out.non_finite_logits = logits.system_non_finite();
  out.metrics.hidden_rel_error = relative_error(out.system_hidden, out.reference_hidden);
  out.metrics.logits_rel_error = logits.rel_error();
  out.metrics.logits_max_abs_error = logits.max_abs_error();
  out.metrics.top1_agreement = logits.top1_agreement();
  out.system_top1 = logits.system_top1();
  out.metrics.positions = positions;
  return out;
}

double activation_bytes_lower_bound(const model::ModelConfig& model, const ForwardShape& shape) {
  const double rows = static_cast<double>(shape.sequences) * static_cast<double>(shape.tokens());
  const double mlp = (model.gated_mlp ? 2.0 : 1.0) * static_cast<double>(model.intermediate);
  return rows * (mlp + 4.0 * static_cast<double>(model.hidden)) * sizeof(float);
}

nlohmann::ordered_json run_functional(const runtime::RunRequest& req, systems::System& system, const FunctionalOptions& opt) {
  return run_functional_with_data(req, system, opt).accuracy;
}

namespace {

// shadowAttn's measured head buckets, and what the report says of them.
void add_head_buckets(runtime::DataDriven& d, const FunctionalOutcome& o) {
  if (o.head_buckets.empty()) return;
  d.head_buckets = o.head_buckets;
  std::uint64_t centre = 0;
  for (const auto& [key, b] : o.head_buckets) centre += b == 0 ? 1 : 0;
  d.summary["shadowattn.head_buckets"] = {
      {"source", "each (prefill chunk, layer, head)'s INT8 scales of its real Q and K, nearest bucket of the calibrated grid"},
      {"estimations", o.head_buckets.size()},
      {"centre_share", static_cast<double>(centre) / static_cast<double>(o.head_buckets.size())},
      {"timing_mode", "scales drawn log-normal around the grid's centre (shadowattn.scale_spread)"}};
}

}  // namespace

std::vector<std::uint64_t> sample_decode_steps(const std::vector<std::uint64_t>& top1, const ForwardShape& shape,
                                               std::vector<std::uint64_t> eos) {
  const std::uint64_t B = shape.sequences;
  if (top1.size() != shape.positions()) throw std::logic_error("greedy tokens for " + std::to_string(top1.size()) + " positions, not " + std::to_string(shape.positions()));
  std::vector<std::uint64_t> steps(B, shape.decode);
  std::sort(eos.begin(), eos.end());  // a config may list many: a lookup per position stays logarithmic
  for (std::uint64_t b = 0; b < B; ++b) {
    for (std::uint64_t g = 0; g < shape.decode; ++g) {
      if (!std::binary_search(eos.begin(), eos.end(), top1[g * B + b])) continue;
      steps[b] = g;
      break;
    }
  }
  return steps;
}

namespace {

// Test-time scaling's sample lengths (sample_decode_steps) and what the report says of them.
void add_sample_lengths(runtime::DataDriven& d, const FunctionalOutcome& o, const ForwardShape& shape, const model::ModelConfig& m) {
  const std::uint64_t B = shape.sequences;
  d.decode_steps = sample_decode_steps(o.system_top1, shape, m.eos_token_ids);
  std::uint64_t rows = 0, early = 0;
  for (std::uint64_t b = 0; b < B; ++b) rows += d.decode_steps[b], early += d.decode_steps[b] < shape.decode ? 1 : 0;
  d.summary["quantities"] = "TTS sample lengths";
  d.summary["tts.decode_steps"] = {
      {"source", "each sample's greedy token (the system's own logits) at each decode position; a sample stops at its first "
                 "eos_token_id and leaves the batch"},
      // (The ids themselves when few: a config listing thousands would swell every report.)
      {"eos_token_ids", m.eos_token_ids.size() <= 16 ? nlohmann::ordered_json(m.eos_token_ids) : nlohmann::ordered_json{{"count", m.eos_token_ids.size()}}},
      {"per_sequence", d.decode_steps},
      {"stopped_early", early},
      {"decode_steps", d.active_per_step().size()},
      {"decode_rows", rows},
      {"timing_mode", {{"decode_steps", shape.decode}, {"decode_rows", shape.decode * B}}}};
}

// The shadow jobs' outliers as measured, and what the report says of them.
runtime::DataDriven shadow_outlier_data(const FunctionalOutcome& o, const runtime::Plan& plan) {
  runtime::DataDriven d;
  add_head_buckets(d, o);
  if (!o.outlier_calibration) {
    if (!d.empty()) d.summary["quantities"] = "shadowAttn head buckets";
    return d;
  }
  double channels = 0, cold = 0;
  std::uint64_t lo = ~std::uint64_t{0}, hi = 0, jobs_planned = 0;
  for (const auto& [key, n] : o.shadow_outliers) {
    const auto& [chunk, layer, group] = key;
    d.shadow_jobs[systems::llm_npu::shadow_job_name(chunk, layer, group)] = n;
    channels += static_cast<double>(n.channels), cold += static_cast<double>(n.cold_channels);
    lo = std::min(lo, n.channels), hi = std::max(hi, n.channels);
    jobs_planned += n.channels > 0 ? 1 : 0;  // a group with no outlier has no shadow job
  }
  const double jobs = static_cast<double>(std::max<std::size_t>(1, o.shadow_outliers.size()));
  const auto modelled = plan.info.value("outlier_channels", std::uint64_t{0});
  d.summary["quantities"] = d.head_buckets.empty() ? "llm.npu outlier channels" : "llm.npu outlier channels, shadowAttn head buckets";
  d.summary["llm_npu.outlier_channels"] = {
      {"source", "each prefill chunk's activations against offline scales calibrated on seeded sequences of their own"},
      {"groups_measured", o.shadow_outliers.size()},  // (chunk, layer, matmul group) of kept layers; mean .. max are over them
      {"shadow_jobs", jobs_planned},
      {"mean", channels / jobs},
      {"min", o.shadow_outliers.empty() ? 0 : lo},
      {"max", hi},
      {"mean_cold", cold / jobs},
      {"timing_mode", {{"channels", modelled},
                       {"cold", std::ceil((1.0 - plan.info.value("hot_hit", 0.8)) * static_cast<double>(modelled) - 1e-9)}}},
      {"calibration", {{"sequences", o.outlier_calibration->sequences},
                       {"tokens", o.outlier_calibration->tokens},
                       {"outlier_channels", o.outlier_calibration->outlier_channels},
                       {"hot_channels", o.outlier_calibration->hot_channels},
                       {"seed", o.outlier_calibration_seed}}}};
  return d;
}

// The layers whose NPU prefill matmuls keep their outliers (the shadow path) in `plan`.
std::vector<std::uint32_t> shadow_layers_of(const runtime::Plan& plan) {
  std::set<std::uint32_t> kept;
  for (const auto& j : plan.jobs) {
    if (j.unit != kernels::Unit::kNpu || j.outliers != runtime::OutlierHandling::kShadow) continue;
    for (const auto& g : j.ops) kept.insert(g.layer);
  }
  return {kept.begin(), kept.end()};
}

// llm.npu's pruned layers (its layer pruning, 3.3 b): which layers keep their outliers, picked by the
// importance the calibration measured when it covered every layer, else by the modelled table.
void add_shadow_layers(runtime::DataDriven& d, const systems::llm_npu::OutlierCalibration& c, const std::vector<std::uint32_t>& modelled,
                       const std::vector<std::uint32_t>& kept, const model::ModelConfig& m) {
  const std::uint64_t measured = c.layer_importance.size();
  if (modelled.empty() || modelled.size() == m.layers) return;  // nothing pruned, or nothing kept: no choice to make
  nlohmann::ordered_json j;
  if (measured == m.layers) {
    d.layer_importance = c.layer_importance;
    const std::string before = d.summary.value("quantities", "");
    d.summary["quantities"] = before.empty() ? "llm.npu shadow layers" : before + ", llm.npu shadow layers";
    j["source"] = "each layer's max|outlier| / s (the largest channel maximum over the offline scale, its largest matmul group) on the "
                  "calibration's sequences; the most important layers keep their outliers";
    j["kept"] = kept;
    j["importance"] = c.layer_importance;
    j["timing_mode"] = {{"kept", modelled}, {"importance", "max(1 / (l + 1), 1 / (L - l)): layers near the input and output"}};
  } else {
    j["source"] = "the modelled importance table: the calibration measured " + std::to_string(measured) + " of " + std::to_string(m.layers) +
                  " layers (--functional-layers), too few to rank them";
    j["kept"] = modelled;
  }
  d.summary["llm_npu.shadow_layers"] = std::move(j);
}

}  // namespace

FunctionalResult run_functional_with_data(const runtime::RunRequest& req, systems::System& system, const FunctionalOptions& opt) {
  std::unique_ptr<WeightSource> weights;
  const SyntheticWeights* synthetic = nullptr;
  if (opt.weights_file.empty()) {
    auto s = std::make_unique<SyntheticWeights>(req.model, req.seed, opt.synthetic);
    synthetic = s.get();
    weights = std::move(s);
  } else {
    weights = std::make_unique<SafetensorsWeights>(opt.weights_file, req.model);
  }
  // The request's lengths (a workload's first request): the same plan the timing run executes.
  const systems::RequestShape lengths{req.prompt_tokens, req.decode_tokens, req.batch};
  runtime::Plan plan = system.plan(req.soc, req.model, lengths);
  // llm.npu's offline calibration first: the layer importance it measures picks the layers whose
  // outliers are kept, so the numerics follow the plan the timed run executes (layer_importance).
  const std::uint64_t layers = opt.layers == 0 ? req.model.layers : opt.layers;
  std::optional<systems::llm_npu::OutlierCalibration> calibration;
  runtime::DataDriven offline;
  std::vector<std::uint32_t> modelled_kept;
  if (const auto options = layers <= req.model.layers ? outlier_calibration_of(plan, layers) : std::nullopt) {
    calibration = systems::llm_npu::calibrate_outliers(req.model, *weights, outlier_calibration_seed(req.seed), *options);
    modelled_kept = shadow_layers_of(plan);
    if (calibration->layer_importance.size() == req.model.layers) {
      offline.layer_importance = calibration->layer_importance;
      plan = system.plan_with(&offline, req.soc, req.model, lengths);
    }
  }
  const ForwardShape shape{req.prompt_tokens, req.decode_tokens, req.batch};
  const FunctionalOutcome o = compare_with_reference(req.model, plan, shape, *weights, req.seed, opt.layers, opt.progress,
                                                     calibration ? &*calibration : nullptr);
  FunctionalResult result;
  result.data = shadow_outlier_data(o, plan);
  if (calibration) add_shadow_layers(result.data, *calibration, modelled_kept, shadow_layers_of(plan), req.model);
  // A truncated forward's logits are not the model's: its samples keep the modelled lengths.
  const bool sampled = system.samples_stop_at_eos() && shape.decode > 0 && !req.model.eos_token_ids.empty();
  if (sampled && o.functional_layers == req.model.layers) add_sample_lengths(result.data, o, shape, req.model);
  if (!result.data.empty()) {
    // Layers past --functional-layers keep the modelled values.
    result.data.summary["computed_layers"] = o.functional_layers;
    result.data.summary["layers"] = req.model.layers;
  }

  nlohmann::ordered_json& j = result.accuracy;
  j["hidden_rel_error"] = o.metrics.hidden_rel_error;
  j["logits_rel_error"] = o.metrics.logits_rel_error;
  j["logits_max_abs_error"] = o.metrics.logits_max_abs_error;
  j["top1_agreement"] = o.metrics.top1_agreement;
  if (o.non_finite_hidden > 0 || o.non_finite_logits > 0) {
    // The system's numerics overflowed where the FP32 reference's did not: its errors are not
    // numbers and its argmax over NaN is no token, so they are reported as null, and why.
    for (const char* k : {"hidden_rel_error", "logits_rel_error", "logits_max_abs_error", "top1_agreement"}) j[k] = nullptr;
    j["non_finite"] = {{"hidden_values", o.non_finite_hidden},
                       {"logits", o.non_finite_logits},
                       {"note", "the system's INT8/FP16 numerics overflowed (the FP32 reference did not): its outputs hold NaN or "
                                "infinite values, so the error metrics are null"}};
    spdlog::warn("functional mode: the system's numerics overflowed: {} of its final hidden values and {} of its logits are NaN or "
                 "infinite (the FP32 reference's are finite); the accuracy metrics are null",
                 o.non_finite_hidden, o.non_finite_logits);
  }
  j["positions"] = o.metrics.positions;
  j["functional_layers"] = o.functional_layers;
  j["layers"] = req.model.layers;
  j["weights"] = weights->describe();
  if (synthetic) {
    j["outlier_channels"] = synthetic->outlier_channels().size();
    j["outlier_scale"] = opt.synthetic.outlier_scale;
  }
  if (!req.workload.empty()) {
    // A workload's requests differ only in lengths; the numerics of the first stand for them
    // (every request computed for real would multiply the run time by their number).
    j["requests_computed"] = 1;
    j["workload_requests"] = req.workload.size();
  }
  if (sampled && o.functional_layers < req.model.layers) {
    j["sample_lengths"] = "modelled (--decode each): the logits of " + std::to_string(o.functional_layers) + " of " +
                          std::to_string(req.model.layers) + " layers are not the model's, so they stop no sample";
  }
  j["attention"] = o.attention;
  if (o.split_matmuls > 0) j["split_matmuls"] = o.split_matmuls;  // each part by its own unit's kernel and precision
  if (o.topk_recall >= 0) j["topk_recall"] = o.topk_recall;
  if (o.attention_rel_error >= 0) j["attention_rel_error"] = o.attention_rel_error;
  if (o.scale_centre_oracle) j["scale_centre"] = "oracle (each chunk and layer's own mean scales)";
  if (o.scale_calibration) {
    const auto& c = *o.scale_calibration;
    j["scale_calibration"] = {{"lam_q", c.mean.q},
                              {"lam_k", c.mean.k},
                              {"log_sd_q", c.log_sd_q},
                              {"log_sd_k", c.log_sd_k},
                              {"sequences", o.scale_calibration_options.sequences},
                              {"chunks", o.scale_calibration_options.chunks},
                              {"chunk", o.scale_calibration_options.chunk},
                              {"samples", c.samples},
                              {"seed", o.scale_calibration_seed},
                              {"data", "seeded token sequences of their own (not the input), the run's weights, FP32 reference"}};
  }
  if (!o.bucket_use.empty()) {
    std::uint64_t total = 0;
    for (auto n : o.bucket_use) total += n;
    j["bucket_use"] = o.bucket_use;
    if (total > 0) j["centre_bucket_share"] = static_cast<double>(o.bucket_use.front()) / static_cast<double>(total);
  }
  j["reference"] = "fp32, whole sequence, teacher-forced tokens";
  return result;
}

}  // namespace socsim::functional
