#include "sim/systems/shadowattn/scale_calibration.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sim/core/run_progress.h"
#include "sim/functional/forward_shape.h"
#include "sim/functional/reference_forward.h"

namespace socsim::systems::shadowattn {

namespace {

// absmax / 127 over `rows` rows of `width` columns from column `col0` of a row-major matrix with
// `stride` columns (0 -> 1, as absmax_scale).
double block_scale(const float* d, std::uint64_t rows, std::uint64_t stride, std::uint64_t col0, std::uint64_t width) {
  float mx = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const float* row = d + r * stride + col0;
    for (std::uint64_t c = 0; c < width; ++c) mx = std::max(mx, std::fabs(row[c]));
  }
  return mx > 0 ? static_cast<double>(mx) / 127.0 : 1.0;
}

}  // namespace

CalibratedScales calibrate_scales(const model::ModelConfig& m, const functional::WeightSource& weights, std::uint64_t seed,
                                  const ScaleCalibrationOptions& o) {
  const std::uint64_t layers = o.layers == 0 ? m.layers : o.layers;
  if (layers > m.layers) throw std::invalid_argument("scale calibration: more layers than the model has");
  if (o.sequences == 0 || o.chunks == 0 || o.chunk == 0) throw std::invalid_argument("scale calibration: no calibration tokens");
  const std::uint64_t T = o.chunks * o.chunk, hd = m.head_dim, heads = m.heads, kvh = m.kv_heads, group = heads / kvh;
  const functional::ForwardShape shape{T, 0, o.sequences};
  const std::vector<std::int32_t> ids = functional::draw_tokens(shape, m.vocab, seed);

  std::vector<ScalePair> samples;
  functional::ReferenceForward ref(m, shape, ids, weights);
  ref.set_qk_observer([&](const kernels::Tensor& q, const kernels::Tensor& k) {
    const float *qd = q.data<float>().data(), *kd = k.data<float>().data();
    for (std::uint64_t b = 0; b < o.sequences; ++b) {
      for (std::uint64_t c = 0; c < o.chunks; ++c) {
        const std::uint64_t r0 = b * T + c * o.chunk;  // the chunk's first row
        std::vector<double> kscale(kvh);
        for (std::uint64_t g = 0; g < kvh; ++g) kscale[g] = block_scale(kd + b * T * kvh * hd, (c + 1) * o.chunk, kvh * hd, g * hd, hd);
        for (std::uint64_t h = 0; h < heads; ++h) {
          samples.push_back({block_scale(qd + r0 * heads * hd, o.chunk, heads * hd, h * hd, hd), kscale[h / group]});
        }
      }
    }
  });
  for (std::uint32_t l = 0; l < layers; ++l) {
    progress_functional_calibration("calibrating shadowAttn's scale grid", l + 1, static_cast<std::uint32_t>(layers));
    ref.run_layer(weights.layer(l));
  }

  CalibratedScales out;
  out.samples = samples.size();
  out.mean = {0, 0};  // (ScalePair defaults to 1, 1)
  double lq = 0, lk = 0;
  for (const auto& s : samples) {
    out.mean.q += s.q, out.mean.k += s.k;
    lq += std::log(s.q), lk += std::log(s.k);
  }
  const double n = static_cast<double>(samples.size());
  out.mean.q /= n, out.mean.k /= n, lq /= n, lk /= n;
  for (const auto& s : samples) {
    out.log_sd_q += (std::log(s.q) - lq) * (std::log(s.q) - lq);
    out.log_sd_k += (std::log(s.k) - lk) * (std::log(s.k) - lk);
  }
  out.log_sd_q = std::sqrt(out.log_sd_q / n), out.log_sd_k = std::sqrt(out.log_sd_k / n);
  return out;
}

}  // namespace socsim::systems::shadowattn
