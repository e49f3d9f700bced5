#pragma once
// Seeded random weights with the statistics that matter for quantization error, for running
// functional mode without a checkpoint.
//
// - Every value is a function of (seed, tensor, element index) alone (a counter-based generator),
//   so the weights are the same whatever the thread count or the order tensors are asked for, and
//   any embedding row can be produced on its own.
// - Matrices are Gaussian-like (Irwin-Hall: the sum of four uniforms, scaled) with std
//   1/sqrt(fan_in), the usual initialization, so a matmul keeps the scale of its input, with two
//   refinements that keep a deep synthetic model as well-conditioned as a trained one (measured:
//   without them qwen2-0.5b's 24 random layers turn any perturbation, even FP16 rounding, into
//   ~100% error and the comparison says nothing about the precision):
//     * matmuls after a norm (q/k/v, gate/up or fc1, lm_head) divide it by the RMS of the norm's
//       gains, sqrt(mean w^2): the outlier channels then do not inflate q.k (trained q/k weights
//       are scaled to their inputs; 30x gains left in would make every attention row one-hot);
//     * the projections that write the residual stream (o_proj, down_proj or fc2) multiply it by
//       1/sqrt(2 layers), GPT-2's residual scaling: each block adds a small update to the stream.
// - Persistent outlier channels. Real LLMs carry a handful of hidden channels whose activations
//   are 10-100x the rest in every layer and every token (LLM.int8(), Dettmers et al. 2022: ~0.1-1%
//   of the channels, magnitudes ~20-60; llm.npu's motivation for shadow outlier execution). They
//   are what makes per-tensor INT8 activations lose accuracy: one scale must cover the outlier,
//   so every other channel gets few levels. We reproduce them where they appear, at the output of
//   the norms: `outlier_channels` seeded channels get norm weight `outlier_scale` (others 1), so
//   every matmul input after a norm (q/k/v, gate/up or fc1, lm_head) carries them. The defaults,
//   4 channels at 30x, are a mid-range LLM.int8() case (0.45% of qwen2-0.5b's 896 channels).
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/functional/weight_source.h"
#include "sim/model/model_config.h"

namespace socsim::functional {

struct SyntheticOptions {
  // Unset: 4, or every channel of a model narrower than that (a 3-wide toy model has 3).
  std::optional<std::uint32_t> outlier_channels;
  double outlier_scale = 30.0;
  unsigned threads = 0;  // generation threads; 0 = all host threads (results do not depend on it)
};

class SyntheticWeights final : public WeightSource {
 public:
  // Throws std::invalid_argument when outlier_channels > hidden or outlier_scale <= 0.
  SyntheticWeights(const model::ModelConfig& model, std::uint64_t seed, SyntheticOptions options = {});

  std::string describe() const override;
  LayerWeights layer(std::uint32_t index) const override;
  void embedding_rows(std::span<const std::int32_t> ids, float* out) const override;
  NormWeights final_norm() const override;
  kernels::Tensor lm_head_rows(std::uint64_t first, std::uint64_t count) const override;

  // The outlier channels, ascending.
  const std::vector<std::uint32_t>& outlier_channels() const { return outliers_; }

 private:
  kernels::Tensor matrix(std::uint64_t tensor_id, std::int64_t rows, std::int64_t cols, double stddev) const;
  NormWeights norm() const;
  double normed_input_gain() const;  // every norm alike: unit gain, outliers on the chosen channels

  model::ModelConfig model_;
  std::uint64_t seed_;
  SyntheticOptions options_;
  std::vector<std::uint32_t> outliers_;
};

}  // namespace socsim::functional
