#include "sim/systems/llm_npu/outlier_calibration.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>

#include "sim/core/run_progress.h"
#include "sim/functional/forward_shape.h"
#include "sim/functional/reference_forward.h"

namespace socsim::systems::llm_npu {

namespace {

std::vector<float> channel_max(const kernels::Tensor& x) {
  const std::int64_t rows = x.dim(0), cols = x.dim(1);
  std::vector<float> mx(static_cast<std::size_t>(cols), 0.0f);
  const float* p = x.data<float>().data();
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) mx[static_cast<std::size_t>(c)] = std::max(mx[static_cast<std::size_t>(c)], std::fabs(p[r * cols + c]));
  }
  return mx;
}

}  // namespace

OutlierCount count_outliers(const kernels::Tensor& x, const GroupScale& g) {
  const std::vector<float> mx = channel_max(x);
  if (mx.size() != g.hot.size()) throw std::invalid_argument("outlier count: input width differs from the calibrated group's");
  const float limit = 127.0f * g.scale;
  OutlierCount n;
  for (std::size_t c = 0; c < mx.size(); ++c) {
    if (mx[c] > limit) {
      ++n.channels;
      if (!g.hot[c]) ++n.cold;
    }
  }
  return n;
}

OutlierCalibration calibrate_outliers(const model::ModelConfig& m, const functional::WeightSource& weights, std::uint64_t seed,
                                      const OutlierCalibrationOptions& o) {
  const std::uint64_t layers = o.layers == 0 ? m.layers : o.layers;
  if (layers > m.layers) throw std::invalid_argument("outlier calibration: more layers than the model has");
  if (o.sequences == 0 || o.tokens == 0) throw std::invalid_argument("outlier calibration: no calibration tokens");
  const functional::ForwardShape shape{o.tokens, 0, o.sequences};
  const std::vector<std::int32_t> ids = functional::draw_tokens(shape, m.vocab, seed);
  functional::ReferenceForward ref(m, shape, ids, weights);
  OutlierCalibration out;
  out.layer_importance.assign(layers, 0.0);
  std::uint32_t layer = 0;
  ref.set_group_input_observer([&](const char* group, const kernels::Tensor& x) {
    std::vector<float> mx = channel_max(x);
    GroupScale g;
    // The hot set: the channels with the largest maxima.
    const auto width = mx.size();
    const auto hot = std::min<std::size_t>(width, static_cast<std::size_t>(std::ceil(o.hot_channels * static_cast<double>(width) - 1e-9)));
    std::vector<std::size_t> order(width);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return mx[a] > mx[b]; });
    g.hot.assign(width, 0);
    for (std::size_t i = 0; i < hot; ++i) g.hot[order[i]] = 1;
    const std::size_t keep = std::min<std::size_t>(o.outlier_channels, width - 1);
    const float t = mx[order[keep]];
    g.scale = t > 0 ? t / 127.0f : 1.0f;
    double& importance = out.layer_importance[layer];
    importance = std::max(importance, static_cast<double>(mx[order[0]]) / static_cast<double>(g.scale));
    out.groups[{layer, group}] = std::move(g);
  });
  for (; layer < layers; ++layer) {
    progress_functional_calibration("calibrating llm.npu's activation scales", layer + 1, static_cast<std::uint32_t>(layers));
    ref.run_layer(weights.layer(layer));
  }
  return out;
}

}  // namespace socsim::systems::llm_npu
