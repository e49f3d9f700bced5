#pragma once
// Weights from a Hugging Face checkpoint in safetensors format, by the Llama/Qwen2 tensor names:
//   model.embed_tokens.weight                       [vocab, hidden]
//   model.layers.{i}.input_layernorm.weight         [hidden]   (+ .bias for LayerNorm models)
//   model.layers.{i}.self_attn.{q,k,v,o}_proj.weight [out, in] (+ q/k/v .bias with attention bias)
//   model.layers.{i}.post_attention_layernorm.weight [hidden]
//   model.layers.{i}.mlp.{gate,up,down}_proj.weight [out, in]  (plain MLP: mlp.fc1 / mlp.fc2)
//   model.norm.weight                               [hidden]
//   lm_head.weight                                  [vocab, hidden] (absent when tied)
// Matrices are transposed to the kernels' [in, out]. Every tensor of every layer is checked
// (present, shape, dtype) when the source is made, so a bad file fails before any computation.
// The forward is the simulator's graph (sequential attention and MLP blocks, RoPE): it equals
// Llama, Qwen2 and Mistral; families with other structure (Gemma's 1 + w norm and scaled
// embedding, phi's parallel block, OPT's learned positions) would load but not match their
// framework's outputs.
#include <filesystem>
#include <memory>

#include "sim/functional/safetensors_file.h"
#include "sim/functional/weight_source.h"
#include "sim/model/model_config.h"

namespace socsim::functional {

class SafetensorsWeights final : public WeightSource {
 public:
  // Throws config::ConfigError naming the file and the tensor.
  SafetensorsWeights(const std::filesystem::path& file, const model::ModelConfig& model);

  std::string describe() const override { return file_.path().string(); }
  LayerWeights layer(std::uint32_t index) const override;
  void embedding_rows(std::span<const std::int32_t> ids, float* out) const override;
  NormWeights final_norm() const override;
  kernels::Tensor lm_head_rows(std::uint64_t first, std::uint64_t count) const override;

 private:
  kernels::Tensor transposed(const std::string& name, std::int64_t out, std::int64_t in) const;
  NormWeights norm(const std::string& prefix) const;
  std::string head_name() const;

  SafetensorsFile file_;
  model::ModelConfig model_;
};

}  // namespace socsim::functional
