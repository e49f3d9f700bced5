#pragma once
// What `socsim run` asks for, after every input has been resolved and checked.
#include <cstdint>
#include <string>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"

namespace socsim::runtime {

enum class Mode { kTiming, kFunctional };

struct RunRequest {
  std::string soc_id;
  hw::SocSpec soc;
  model::ModelConfig model;
  std::string system;
  Mode mode = Mode::kTiming;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t decode_tokens = 0;
  std::uint64_t batch = 1;
  std::uint64_t seed = 0;
};

inline const char* mode_name(Mode m) { return m == Mode::kTiming ? "timing" : "functional"; }

}  // namespace socsim::runtime
