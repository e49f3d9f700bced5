#include "sim/systems/llm_npu/outlier_plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace socsim::systems::llm_npu {

std::vector<double> layer_importance(std::uint64_t layers) {
  std::vector<double> v(layers);
  for (std::uint64_t l = 0; l < layers; ++l) {
    v[l] = std::max(1.0 / static_cast<double>(l + 1), 1.0 / static_cast<double>(layers - l));
  }
  return v;
}

std::vector<bool> shadow_layers(std::uint64_t layers, double prune) { return shadow_layers(layer_importance(layers), prune); }

std::vector<bool> planned_shadow_layers(const runtime::DataDriven* data, const std::vector<bool>& modelled, double prune) {
  if (data == nullptr || data->layer_importance.size() != modelled.size()) return modelled;
  return shadow_layers(data->layer_importance, prune);
}

std::vector<bool> shadow_layers(const std::vector<double>& imp, double prune) {
  const std::uint64_t layers = imp.size();
  std::vector<std::uint64_t> order(layers);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return imp[a] > imp[b]; });
  const auto keep = static_cast<std::uint64_t>(std::ceil((1.0 - prune) * static_cast<double>(layers) - 1e-9));
  std::vector<bool> kept(layers, false);
  for (std::uint64_t i = 0; i < std::min(keep, layers); ++i) kept[order[i]] = true;
  return kept;
}

model::OpDesc shadow_matmul(std::uint64_t rows, std::uint64_t channels, std::uint64_t n) {
  model::OpDesc op{"outlier_matmul", model::OpKind::kMatMul};
  op.m = rows, op.k = channels, op.n = n;
  op.weight_params = channels * n;
  return op;
}

ShadowWork shadow_work(const Options& o, const runtime::DataDriven* data, const std::string& name, std::uint64_t n, bool* measured) {
  *measured = false;
  if (data) {
    if (const auto it = data->shadow_jobs.find(name); it != data->shadow_jobs.end()) {
      *measured = true;
      return {it->second.channels, it->second.cold_channels * n};
    }
  }
  return {o.outlier_channels, cold_row_bytes(o, n)};
}

model::OpDesc outlier_merge(std::uint64_t rows, std::uint64_t n) {
  model::OpDesc op{"outlier_merge", model::OpKind::kElementwise};
  op.elements = rows * n;
  return op;
}

std::string shadow_job_name(std::uint64_t chunk, std::uint32_t layer, const std::string& group) {
  return "prefill.c" + std::to_string(chunk) + ".L" + std::to_string(layer) + ".shadow." + group;
}

std::uint64_t cold_row_bytes(const Options& o, std::uint64_t n) {
  const auto cold = static_cast<std::uint64_t>(std::ceil((1.0 - o.hot_hit) * static_cast<double>(o.outlier_channels) - 1e-9));
  return cold * n;
}

std::uint64_t hot_weight_bytes(const Options& o, const model::ModelConfig& m, const std::vector<bool>& kept) {
  // Per kept layer, the hot share of every matmul's input channels, each a row of n INT8 weights:
  // this is the share of the layer's weights (k n per matmul) kept resident.
  const auto kept_layers = static_cast<std::uint64_t>(std::count(kept.begin(), kept.end(), true));
  return static_cast<std::uint64_t>(std::ceil(o.hot_channels * static_cast<double>(m.params_per_layer()))) * kept_layers;
}

}  // namespace socsim::systems::llm_npu
