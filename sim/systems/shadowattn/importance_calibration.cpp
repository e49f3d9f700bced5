#include "sim/systems/shadowattn/importance_calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "sim/functional/linear.h"
#include "sim/functional/reference_forward.h"
#include "sim/functional/synthetic_weights.h"

namespace socsim::systems::shadowattn {

namespace {

using functional::ReferenceForward;
using kernels::Tensor;

// Log-softmax of each row of [rows x cols] logits, in double.
std::vector<double> log_softmax(const Tensor& logits) {
  const auto rows = static_cast<std::size_t>(logits.dim(0)), cols = static_cast<std::size_t>(logits.dim(1));
  const float* d = logits.data<float>().data();
  std::vector<double> out(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* v = d + r * cols;
    const double mx = *std::max_element(v, v + cols);
    double sum = 0;
    for (std::size_t c = 0; c < cols; ++c) sum += std::exp(v[c] - mx);
    const double lse = mx + std::log(sum);
    for (std::size_t c = 0; c < cols; ++c) out[r * cols + c] = v[c] - lse;
  }
  return out;
}

// Mean over rows of KL(p || q), both given as log-probabilities.
double mean_kl(const std::vector<double>& logp, const std::vector<double>& logq, std::size_t rows) {
  double kl = 0;
  for (std::size_t i = 0; i < logp.size(); ++i) kl += std::exp(logp[i]) * (logp[i] - logq[i]);
  return std::max(0.0, kl / static_cast<double>(rows));  // rounding can leave -1e-17 for "no change"
}

void zero_rows(Tensor& w, std::uint64_t first, std::uint64_t count) {
  const auto cols = static_cast<std::uint64_t>(w.dim(1));
  auto d = w.data<float>();
  std::fill(d.begin() + static_cast<std::ptrdiff_t>(first * cols), d.begin() + static_cast<std::ptrdiff_t>((first + count) * cols), 0.0f);
}

}  // namespace

std::uint64_t calibration_layer_passes(std::uint64_t layers, std::uint64_t heads) {
  // Layer l runs the l (heads + 1) streams ablated before it, its own heads + 1, and the base.
  return (heads + 1) * layers * (layers + 1) / 2 + layers;
}

double calibration_host_seconds(const model::ModelConfig& m, const CalibrationOptions& o) {
  const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
  const double layers = d(o.layers == 0 ? m.layers : o.layers), T = d(o.tokens);
  const double q = d(m.heads * m.head_dim), kv = d(m.kv_heads * m.head_dim), h = d(m.hidden);
  // A layer's weights (q, k, v, o and the gated MLP), 2 flops each per token; its causal
  // attention, Q.K^T and P.V over half the square: 2 heads x head_dim flops per token pair.
  const double weights = h * (q + 2 * kv) + q * h + 3 * h * d(m.intermediate);
  const double per_pass = 2 * weights * T / kCalibrationGemmFlops + 2 * q * T * T / kCalibrationAttentionFlops;
  return d(calibration_layer_passes(static_cast<std::uint64_t>(layers), m.heads)) * d(o.sequences) * per_pass;
}

CalibratedImportance calibrate_importance(const model::ModelConfig& m, const functional::WeightSource& weights, std::uint64_t seed,
                                          const CalibrationOptions& o) {
  const std::uint64_t layers = o.layers == 0 ? m.layers : o.layers;
  if (layers > m.layers) throw std::invalid_argument("calibration: more layers than the model has");
  if (o.sequences == 0 || o.scored == 0 || o.tokens < o.scored) throw std::invalid_argument("calibration: tokens must cover the scored positions");
  // The last `scored` positions are forward_shape's head positions of a prompt followed by
  // scored - 1 teacher-forced steps.
  const functional::ForwardShape shape{o.tokens - o.scored + 1, o.scored - 1, o.sequences};
  const std::vector<std::int32_t> ids = functional::draw_tokens(shape, m.vocab, seed);
  const std::uint64_t heads = m.heads, hd = m.head_dim;

  CalibratedImportance out;
  out.layers_calibrated = layers;
  ReferenceForward base(m, shape, ids, weights);
  // Ablated streams, in order: layer 0's heads, layer 0's attention, layer 1's heads, ...
  std::vector<ReferenceForward> ablated;
  ablated.reserve(layers * (heads + 1));
  const std::uint64_t passes = calibration_layer_passes(layers, heads);
  const auto passed = [&](std::uint32_t l) {
    ++out.layer_passes;
    if (o.on_pass) o.on_pass(l + 1, layers, out.layer_passes, passes);
  };
  for (std::uint32_t l = 0; l < layers; ++l) {
    functional::LayerWeights w = weights.layer(l);
    for (auto& s : ablated) {
      s.run_layer(w);
      passed(l);
    }
    const Tensor o_proj = w.o;
    for (std::uint64_t h = 0; h <= heads; ++h) {
      if (h < heads) zero_rows(w.o, h * hd, hd);
      else zero_rows(w.o, 0, heads * hd);  // the whole layer's attention
      ablated.push_back(base);
      ablated.back().run_layer(w);
      passed(l);
      w.o = o_proj;
    }
    base.run_layer(w);
    passed(l);
  }

  const functional::NormWeights final_norm = weights.final_norm();
  const std::uint64_t rows = o.vocab_rows == 0 ? m.vocab : std::min(o.vocab_rows, m.vocab);
  const Tensor head_rows = weights.lm_head_rows(0, rows);
  functional::Linear head(head_rows, functional::Linear::Orientation::kOutIn);
  const auto log_probs = [&](const ReferenceForward& s) { return log_softmax(head.apply(s.final_hidden(final_norm), runtime::Precision::kFp32)); };
  const std::vector<double> logp = log_probs(base);
  const std::size_t positions = shape.positions();
  for (std::size_t i = 0; i < logp.size(); ++i) out.base_entropy -= std::exp(logp[i]) * logp[i];
  out.base_entropy /= static_cast<double>(positions);

  double head_sum = 0, layer_sum = 0;
  for (std::uint64_t l = 0; l < layers; ++l) {
    for (std::uint64_t h = 0; h <= heads; ++h) {
      const double kl = mean_kl(logp, log_probs(ablated[l * (heads + 1) + h]), positions);
      if (h < heads) out.importance.head.push_back(kl), head_sum += kl;
      else out.importance.layer.push_back(kl), layer_sum += kl;
    }
  }
  // Layers not calibrated: the calibrated means (their heads then share the ratio evenly).
  const double head_mean = head_sum / static_cast<double>(layers * heads), layer_mean = layer_sum / static_cast<double>(layers);
  for (std::uint64_t l = layers; l < m.layers; ++l) {
    out.importance.layer.push_back(layer_mean);
    out.importance.head.insert(out.importance.head.end(), heads, head_mean);
  }
  return out;
}

const CalibratedImportance& cached_calibration(const model::ModelConfig& m, std::uint64_t seed, const CalibrationOptions& o) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CalibratedImportance>> cache;
  std::string key = m.id;
  for (std::uint64_t v : {std::uint64_t{m.layers}, std::uint64_t{m.heads}, std::uint64_t{m.hidden}, std::uint64_t{m.intermediate},
                          std::uint64_t{m.vocab}, seed, o.sequences, o.tokens, o.scored, o.layers, o.vocab_rows}) {
    key += "/" + std::to_string(v);
  }
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[key];
  if (!slot) {
    const functional::SyntheticWeights weights(m, seed);
    slot = std::make_unique<CalibratedImportance>(calibrate_importance(m, weights, seed, o));
  }
  return *slot;
}

}  // namespace socsim::systems::shadowattn
