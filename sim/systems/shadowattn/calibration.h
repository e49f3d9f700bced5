#pragma once
// shadowAttn's offline calibration as pure functions (../shared/papers/shadowattn.md 2 and 4).
//
// Per-head ratios (Eq. 3): score[i] = clamp(headImp[i] x layerImp[layer(i)]), clamped to
// [mean / c, mean x c] (the paper caps extreme values; its example cap is in its loss units);
// ratio[i] = r N score[i] / sum score, capped at 1, the excess of capped heads spread over the
// others in proportion to their scores so the mean stays r (when r <= 1 allows it).
//
// Buckets: a k x k grid (k = ceil(sqrt(n)), odd) of scale pairs (lamQ step^a, lamK step^b),
// a, b in -(k-1)/2 .. (k-1)/2, the n nearest the centre (in grid steps) kept; an input goes to
// the bucket of least MSE of its scale pair.
//
// The importance and scales here are synthetic (seeded), standing in for the paper's calibration
// on WikiText-2: head importance ~ U(0.05, 1)^2, layer importance ~ U(0.2, 1), per-head scales
// (timing mode) log-normal around the calibrated mean (sigma `spread` in log space). Importance
// measured by ablation on synthetic weights in functional mode: importance_calibration.h
// (shadowattn.importance=calibrated); scales measured in functional mode: scale_calibration.h.
#include <cstdint>
#include <vector>

namespace socsim::systems::shadowattn {

std::vector<double> head_ratios(const std::vector<double>& head_importance, const std::vector<double>& layer_importance,
                                std::uint64_t heads_per_layer, double r, double clamp);

struct ScalePair {
  double q = 1, k = 1;
};
std::vector<ScalePair> bucket_grid(ScalePair mean, std::uint32_t n, double step);
std::size_t nearest_bucket(const std::vector<ScalePair>& grid, ScalePair s);

// Deterministic uniform in [0, 1) from a seed and three indices.
double synthetic_uniform(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c);
struct Importance {
  std::vector<double> head, layer;
};
Importance synthetic_importance(std::uint64_t seed, std::uint64_t layers, std::uint64_t heads_per_layer);
// Relative to the calibrated mean (1, 1): the grid is centred there, so only the ratio matters.
ScalePair synthetic_scales(std::uint64_t seed, std::uint64_t layer, std::uint64_t head, std::uint64_t chunk, double spread = 0.5);

}  // namespace socsim::systems::shadowattn
