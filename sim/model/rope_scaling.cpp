#include "sim/model/rope_scaling.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "sim/config/config_error.h"

namespace socsim::model {

std::vector<double> rope_inverse_frequencies(double theta, std::uint64_t rotary_dims, const RopeScaling& s) {
  if (s.kind == RopeScaling::Kind::kOther) {
    throw config::ConfigError({s.file, s.line, 0}, s.key,
                              "'" + s.name + "' is not computed by socsim's forward passes (functional mode and the offline "
                              "calibrations compute linear and llama3); timing mode does not depend on it");
  }
  const std::uint64_t h = rotary_dims / 2;
  std::vector<double> f(h);
  for (std::uint64_t i = 0; i < h; ++i) f[i] = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dims));
  if (s.kind == RopeScaling::Kind::kLinear) {
    for (double& v : f) v /= s.factor;
  } else if (s.kind == RopeScaling::Kind::kLlama3) {
    const double low_wavelen = s.original_max_positions / s.low_freq_factor;
    const double high_wavelen = s.original_max_positions / s.high_freq_factor;
    for (double& v : f) {
      const double wavelen = 2.0 * std::numbers::pi / v;
      if (wavelen < high_wavelen) continue;  // high frequencies: kept
      if (wavelen > low_wavelen) {           // low frequencies: stretched
        v /= s.factor;
        continue;
      }
      const double smooth = (s.original_max_positions / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      v = (1.0 - smooth) * v / s.factor + smooth * v;
    }
  }
  return f;
}

}  // namespace socsim::model
