#pragma once
// Synthetic weights with one layer edited by the test (a head silenced, a channel made loud): the
// tests that check a mechanism follows the data give it data that differs in one known place.
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "sim/functional/synthetic_weights.h"
#include "sim/functional/weight_source.h"

namespace socsim::functional::test {

class EditedLayerWeights final : public WeightSource {
 public:
  EditedLayerWeights(const model::ModelConfig& m, std::uint64_t seed, std::uint32_t layer, std::function<void(LayerWeights&)> edit,
                     std::string name)
      : inner_(m, seed), layer_(layer), edit_(std::move(edit)), name_(std::move(name)) {}
  std::string describe() const override { return name_; }
  LayerWeights layer(std::uint32_t index) const override {
    auto w = inner_.layer(index);
    if (index == layer_) edit_(w);
    return w;
  }
  void embedding_rows(std::span<const std::int32_t> ids, float* out) const override { inner_.embedding_rows(ids, out); }
  NormWeights final_norm() const override { return inner_.final_norm(); }
  kernels::Tensor lm_head_rows(std::uint64_t first, std::uint64_t count) const override { return inner_.lm_head_rows(first, count); }

 private:
  SyntheticWeights inner_;
  std::uint32_t layer_;
  std::function<void(LayerWeights&)> edit_;
  std::string name_;
};

}  // namespace socsim::functional::test
