#include "sim/functional/synthetic_weights.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/gemm/gemm_dims.h"
#include "kernels/gemm/packed_gemm.h"
#include "sim/runtime/workload/portable_rng.h"

namespace socsim::functional {

namespace {

using kernels::ElemType;
using kernels::Tensor;

// SplitMix64's output function: a bijective 64-bit mix. value(i) = mix(key + (i + 1) * gamma) is
// SplitMix64's i-th output, so element i needs no state from element i - 1 (counter-based).
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ULL;

// Tensor ids: fixed per role so adding a tensor kind never shifts the others' values.
enum : std::uint64_t { kEmbedding = 1, kLmHead = 2, kOutlierChoice = 4 };
// Appended only: a tensor's kind seeds its values.
enum : std::uint64_t { kQ = 1, kK, kV, kO, kGate, kUp, kDown, kQBias, kKBias, kVBias, kOBias, kGateBias, kUpBias, kDownBias };
std::uint64_t layer_tensor(std::uint32_t layer, std::uint64_t kind) { return (std::uint64_t{layer} + 1) << 8 | kind; }

// Sum of four 16-bit uniforms minus its mean: an integer in [-131070, 131070] (exact in float)
// with standard deviation sqrt(4 (2^32 - 1) / 12).
const double kSumStd = std::sqrt(4.0 * (65536.0 * 65536.0 - 1.0) / 12.0);

inline float irwin_hall(std::uint64_t bits, float scale) {
  const std::int64_t s = static_cast<std::int64_t>(bits & 0xFFFF) + static_cast<std::int64_t>((bits >> 16) & 0xFFFF) +
                         static_cast<std::int64_t>((bits >> 32) & 0xFFFF) + static_cast<std::int64_t>(bits >> 48);
  return static_cast<float>(s - 2 * 65535) * scale;
}

// Making a model's weights was a tenth of a functional run (qwen2-0.5b: half a billion values).
// The loop is integer multiplies and shifts on independent elements: compiled also for x86-64-v4,
// whose 64-bit vector multiply (AVX-512DQ) lets GCC vectorize it (x86-64-v3 has none: its copy
// would be the baseline's scalar loop); the loader picks the copy the host runs. Same values on
// every copy: integer arithmetic, an exact int-to-float conversion, one correctly rounded product.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SOCSIM_FILL_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define SOCSIM_FILL_CLONES
#endif
SOCSIM_FILL_CLONES void fill_range(float* out, std::uint64_t key, std::uint64_t first, std::uint64_t b, std::uint64_t e,
                                   float scale) {
  for (std::uint64_t i = b; i < e; ++i) out[i] = irwin_hall(mix64(key + (first + i + 1) * kGamma), scale);
}

// Elements [first, first + count) of tensor `key`'s stream, std `stddev`, on `threads` threads
// (each a contiguous range; the values do not depend on the split).
void fill(float* out, std::uint64_t key, std::uint64_t first, std::uint64_t count, double stddev, unsigned threads) {
  const auto scale = static_cast<float>(stddev / kSumStd);
  const unsigned t = static_cast<unsigned>(std::clamp<std::uint64_t>(count / 65536, 1, threads));
  kernels::parallel_for(t, [&](std::size_t part) { fill_range(out, key, first, count * part / t, count * (part + 1) / t, scale); });
}

}  // namespace

SyntheticWeights::SyntheticWeights(const model::ModelConfig& model, std::uint64_t seed, SyntheticOptions options)
    : model_(model), seed_(seed), options_(options) {
  const std::uint32_t outliers = options_.outlier_channels.value_or(static_cast<std::uint32_t>(std::min<std::uint64_t>(4, model_.hidden)));
  if (outliers > model_.hidden) {
    throw std::invalid_argument("outlier_channels (" + std::to_string(outliers) + ") exceeds hidden (" + std::to_string(model_.hidden) + ")");
  }
  if (!(options_.outlier_scale > 0)) throw std::invalid_argument("outlier_scale must be > 0");
  if (options_.threads == 0) options_.threads = kernels::default_gemm_threads();
  // Distinct channels drawn with the portable generator (same choice on every platform).
  runtime::PortableRng rng(mix64(seed ^ mix64(kOutlierChoice)));
  std::vector<std::uint32_t> all(model_.hidden);
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  for (std::uint32_t i = 0; i < outliers; ++i) {
    const auto j = i + static_cast<std::uint32_t>(rng.below(all.size() - i));
    std::swap(all[i], all[j]);
    outliers_.push_back(all[i]);
  }
  std::sort(outliers_.begin(), outliers_.end());
}

std::string SyntheticWeights::describe() const { return "synthetic:seed=" + std::to_string(seed_); }

Tensor SyntheticWeights::matrix(std::uint64_t tensor_id, std::int64_t rows, std::int64_t cols, double stddev) const {
  Tensor t = Tensor::uninitialized_matrix(rows, cols, ElemType::kF32);  // fill() writes every element
  fill(t.data<float>().data(), mix64(seed_ ^ mix64(tensor_id)), 0, t.numel(), stddev, options_.threads);
  return t;
}

// RMS of a norm's gains: the scale of every matmul input that follows a norm.
double SyntheticWeights::normed_input_gain() const {
  const double n = static_cast<double>(outliers_.size()), h = static_cast<double>(model_.hidden);
  return std::sqrt((h - n + n * options_.outlier_scale * options_.outlier_scale) / h);
}

NormWeights SyntheticWeights::norm() const {
  // Unit gain (the usual initialization) except on the outlier channels; LayerNorm shift 0.
  NormWeights n;
  n.weight.assign(model_.hidden, 1.0f);
  for (auto c : outliers_) n.weight[c] = static_cast<float>(options_.outlier_scale);
  if (model_.norm == model::NormKind::kLayerNorm) n.bias.assign(model_.hidden, 0.0f);
  return n;
}

LayerWeights SyntheticWeights::layer(std::uint32_t l) const {
  const auto h = static_cast<std::int64_t>(model_.hidden), inter = static_cast<std::int64_t>(model_.intermediate);
  const auto q_dim = static_cast<std::int64_t>(model_.heads * model_.head_dim);
  const auto kv_dim = static_cast<std::int64_t>(model_.kv_heads * model_.head_dim);
  const auto inv_sqrt = [](std::int64_t fan_in) { return 1.0 / std::sqrt(static_cast<double>(fan_in)); };
  LayerWeights w;
  const double g = normed_input_gain();
  w.q = matrix(layer_tensor(l, kQ), h, q_dim, inv_sqrt(h) / g);
  w.k = matrix(layer_tensor(l, kK), h, kv_dim, inv_sqrt(h) / g);
  w.v = matrix(layer_tensor(l, kV), h, kv_dim, inv_sqrt(h) / g);
  const double resid = 1.0 / std::sqrt(2.0 * static_cast<double>(model_.layers));  // GPT-2 residual scaling
  w.o = matrix(layer_tensor(l, kO), q_dim, h, inv_sqrt(q_dim) * resid);
  if (model_.gated_mlp) w.gate = matrix(layer_tensor(l, kGate), h, inter, inv_sqrt(h) / g);
  w.up = matrix(layer_tensor(l, kUp), h, inter, inv_sqrt(h) / g);
  w.down = matrix(layer_tensor(l, kDown), inter, h, inv_sqrt(inter) * resid);
  // Small biases (std 0.1): present so the bias path is exercised, not large enough to dominate.
  const auto bias = [&](std::uint64_t kind, std::int64_t n) {
    const Tensor b = matrix(layer_tensor(l, kind), 1, n, 0.1);
    return std::vector<float>(b.data<float>().begin(), b.data<float>().end());
  };
  if (model_.attention_bias) {
    w.q_bias = bias(kQBias, q_dim);
    w.k_bias = bias(kKBias, kv_dim);
    w.v_bias = bias(kVBias, kv_dim);
  }
  if (model_.output_bias) w.o_bias = bias(kOBias, h);
  if (model_.mlp_bias) {
    if (model_.gated_mlp) w.gate_bias = bias(kGateBias, inter);
    w.up_bias = bias(kUpBias, inter);
    w.down_bias = bias(kDownBias, h);
  }
  w.input_norm = norm();
  w.post_norm = norm();
  return w;
}

void SyntheticWeights::embedding_rows(std::span<const std::int32_t> ids, float* out) const {
  const std::uint64_t key = mix64(seed_ ^ mix64(kEmbedding)), h = model_.hidden;
  // Tied: the head's rows, so the head's std; untied: 1/sqrt(hidden).
  const double stddev = 1.0 / std::sqrt(static_cast<double>(h)) / (model_.tied_embeddings ? normed_input_gain() : 1.0);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || static_cast<std::uint64_t>(ids[i]) >= model_.vocab) throw std::out_of_range("token id outside the vocabulary");
    fill(out + i * h, key, static_cast<std::uint64_t>(ids[i]) * h, h, stddev, 1);
  }
}

NormWeights SyntheticWeights::final_norm() const { return norm(); }

Tensor SyntheticWeights::lm_head_rows(std::uint64_t first, std::uint64_t count) const {
  if (first + count > model_.vocab) throw std::out_of_range("lm_head rows outside the vocabulary");
  const std::uint64_t h = model_.hidden;
  // Tied: the embedding's own rows (same stream, same std); untied: a stream of its own.
  const std::uint64_t key = mix64(seed_ ^ mix64(model_.tied_embeddings ? kEmbedding : kLmHead));
  Tensor t = Tensor::uninitialized_matrix(static_cast<std::int64_t>(count), static_cast<std::int64_t>(h), ElemType::kF32);  // filled whole
  // The head's input is the final norm's output: std 1/sqrt(hidden) over its gain RMS.
  fill(t.data<float>().data(), key, first * h, count * h, 1.0 / std::sqrt(static_cast<double>(h)) / normed_input_gain(),
       options_.threads);
  return t;
}

}  // namespace socsim::functional
