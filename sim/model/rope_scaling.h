#pragma once
// A model's rope_scaling (Hugging Face config.json): how it stretches RoPE's frequencies to run past
// the context it was trained at. Functional mode's numerics only; the timing model never reads it.
//   linear  every inverse frequency / factor (positions compressed factor-fold)
//   llama3  Llama 3.1/3.2: with wavelength w = 2 pi / f and the original context C, frequencies
//           whose w > C / low_freq_factor are divided by factor, those with w < C /
//           high_freq_factor kept, and between them blended:
//             s = (C / w - low_freq_factor) / (high_freq_factor - low_freq_factor),
//             f' = (1 - s) f / factor + s f
// (transformers' _compute_linear_scaling_rope_parameters / _compute_llama3_parameters). Other
// types (dynamic, yarn, longrope) are not computed: a forward pass refuses them by name.
#include <cstdint>
#include <string>
#include <vector>

namespace socsim::model {

struct RopeScaling {
  enum class Kind { kNone, kLinear, kLlama3, kOther };
  Kind kind = Kind::kNone;
  std::string name;  // rope_type as the config spells it (for kOther's message)
  std::string key;   // the key that gave it ("rope_scaling.rope_type" or "rope_scaling.type") and where
  std::string file;
  int line = 0;
  double factor = 1.0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  double original_max_positions = 8192.0;
};

// The h = rotary_dims / 2 inverse frequencies theta^(-2i / rotary_dims), scaled as `s` says. A
// type not computed is bad input at its key's file:line (config::ConfigError), whichever forward
// pass (functional mode, an offline calibration) asks for it.
std::vector<double> rope_inverse_frequencies(double theta, std::uint64_t rotary_dims, const RopeScaling& s);

}  // namespace socsim::model
