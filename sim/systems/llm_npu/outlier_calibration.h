#pragma once
// llm.npu's offline activation scales (../shared/papers/llm-npu.md 3.3): each per-tensor W8A8
// matmul group's input scale is profiled offline, so that only a few channels (the outliers) fall
// outside it; at run time the channels of a chunk whose activations exceed the scale are the
// outliers the CPU computes in the shadow, and those outside the hot set read their weight rows
// from storage. Which and how many depends on the chunk's data.
//
// Here the FP32 reference forward (functional/reference_forward.h) runs `sequences` seeded token
// sequences of `tokens` tokens of their own (never the input) through the run's weights; for every
// (layer, matmul group) the per-channel absolute maxima over those rows give
//   scale = the (outlier_channels + 1)-th largest channel max / 127 (so on calibration data about
//           `outlier_channels` channels, the paper's 5-15, sit above it), and
//   hot   = the ceil(hot_channels x width) channels with the largest maxima (their weight rows stay
//           in memory; llm.npu: < 3% of channels hold > 80% of the outliers).
// and for every layer its outlier importance, llm.npu's max|outlier| / s: the largest channel max
// over the scale, the largest over the layer's groups (it picks the layers whose outliers are kept,
// outlier_plan.h's shadow_layers).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernels/tensor/tensor.h"
#include "sim/functional/weight_source.h"
#include "sim/model/model_config.h"

namespace socsim::systems::llm_npu {

struct GroupScale {
  float scale = 1;                  // per-tensor activation scale (values above 127 x scale are outliers)
  std::vector<std::uint8_t> hot;    // per input channel: 1 = its weight rows are resident
};

struct OutlierCalibrationOptions {
  std::uint64_t sequences = 2, tokens = 256;
  std::uint64_t layers = 0;          // decoder layers measured; 0 = all
  std::uint64_t outlier_channels = 10;
  double hot_channels = 0.03;
};

struct OutlierCalibration {
  std::map<std::pair<std::uint32_t, std::string>, GroupScale> groups;  // (layer, first matmul) -> scale
  std::vector<double> layer_importance;                                // per measured layer: max|outlier| / s
  const GroupScale* find(std::uint32_t layer, const std::string& group) const {
    const auto it = groups.find({layer, group});
    return it == groups.end() ? nullptr : &it->second;
  }
};

// Outlier channels of `x` [rows x width] against a calibrated group scale: channels with a value
// above 127 x scale, and how many of them are not hot.
struct OutlierCount {
  std::uint64_t channels = 0, cold = 0;
};
OutlierCount count_outliers(const kernels::Tensor& x, const GroupScale& g);

// Throws std::invalid_argument for no calibration tokens or more layers than the model has.
OutlierCalibration calibrate_outliers(const model::ModelConfig& model, const functional::WeightSource& weights, std::uint64_t seed,
                                      const OutlierCalibrationOptions& options);

}  // namespace socsim::systems::llm_npu
