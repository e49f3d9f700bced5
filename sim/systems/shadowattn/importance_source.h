#pragma once
// Where shadowAttn's head importance comes from (the `importance` option, shadowattn_options.h):
// the model's offline calibration file, a calibration measured now by ablation in functional
// mode, or seeded synthetic scores. The importance sizes each head's top-k (Eq. 3).
#include <nlohmann/json.hpp>

#include "sim/model/model_config.h"
#include "sim/systems/shadowattn/calibration.h"
#include "sim/systems/shadowattn/shadowattn_options.h"

namespace socsim::systems::shadowattn {

// The importance per the options, and what `info` (system_info.importance) reports about its
// source. Throws config::ConfigError when importance=offline and the model has no file.
Importance resolve_importance(const Options& o, const model::ModelConfig& m, nlohmann::ordered_json& info);

}  // namespace socsim::systems::shadowattn
