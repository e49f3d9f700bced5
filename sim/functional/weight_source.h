#pragma once
// Where functional mode gets a model's weights. Both the plan-driven forward and the FP32
// reference read the same source, layer by layer, so only one decoder layer's weights are alive
// at a time and a 0.5B model needs no more memory than its largest layer plus one head block.
//
// Orientation: decoder-layer matrices come as the GEMM kernels take them, W[k x n] = [input
// features x output features], row-major FP32 (Hugging Face stores [out, in]; a file loader
// transposes). The output head comes in the other orientation, [vocab x hidden] rows, because it
// is the embedding table when the model ties them and because the head is processed in blocks of
// vocabulary rows (a block of rows is a contiguous slice in that orientation).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/tensor/tensor.h"

namespace socsim::functional {

struct NormWeights {
  std::vector<float> weight;
  std::vector<float> bias;  // LayerNorm only; empty for RMSNorm
};

struct LayerWeights {
  kernels::Tensor q, k, v, o;  // [hidden x heads*hd], [hidden x kv_heads*hd] (k, v), [heads*hd x hidden]
  // Gated MLP: gate and up [hidden x intermediate], down [intermediate x hidden]. Plain MLP
  // (OPT, phi): `up` holds fc1 and `down` fc2; `gate` is empty.
  kernels::Tensor gate, up, down;
  std::vector<float> q_bias, k_bias, v_bias;  // empty when the model has no attention bias
  std::vector<float> o_bias;                  // empty without an output bias (ModelConfig::output_bias)
  // Empty without MLP biases (ModelConfig::mlp_bias); a plain MLP's fc1 bias is `up_bias`, fc2's `down_bias`.
  std::vector<float> gate_bias, up_bias, down_bias;
  NormWeights input_norm, post_norm;
};

class WeightSource {
 public:
  virtual ~WeightSource() = default;
  // "synthetic:seed=N" or the file's path: written into the accuracy report.
  virtual std::string describe() const = 0;
  virtual LayerWeights layer(std::uint32_t index) const = 0;
  // The embedding rows of `ids`, written to out[i * hidden ...].
  virtual void embedding_rows(std::span<const std::int32_t> ids, float* out) const = 0;
  virtual NormWeights final_norm() const = 0;
  // Rows [first, first + count) of the output head, [count x hidden] FP32 (the embedding when tied).
  virtual kernels::Tensor lm_head_rows(std::uint64_t first, std::uint64_t count) const = 0;
};

}  // namespace socsim::functional
