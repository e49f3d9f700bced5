#pragma once
// shadowAttn's offline importance calibration on disk. The paper calibrates once, offline, and
// the ratios cost nothing online (../shared/papers/shadowattn.md section 2); here
// `socsim calibrate --model M --out F` runs importance_calibration.h over every layer and writes F,
// and the shadowattn system reads it. models/shadowattn/<model>.importance.json are committed for
// the paper's four models (scripts/shadowattn-calibrate.sh regenerates them).
//
//   {"model": "qwen2-0.5b", "seed": 1, "method": "...",
//    "calibration": {"sequences": 2, "tokens": 32, "scored": 8, "vocab_rows": 4096},
//    "layers": 24, "heads": 14, "layers_calibrated": 24, "layer_passes": ..., "base_entropy_nats": ...,
//    "layer_importance": [24 numbers], "head_importance": [[14 numbers] x 24]}
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/model/model_config.h"
#include "sim/systems/shadowattn/importance_types.h"

namespace socsim::systems::shadowattn {

struct OfflineImportance {
  std::string model;
  std::uint64_t seed = 0;
  CalibrationOptions options;
  CalibratedImportance calibration;
};

nlohmann::ordered_json importance_json(const model::ModelConfig& m, const OfflineImportance& o);

// Reads `file` and checks it against the model (layers, heads; importance finite and >= 0). Bad
// input throws config::ConfigError naming the file and the key.
OfflineImportance read_importance_file(const std::filesystem::path& file, const model::ModelConfig& m);
// The same from the file's text (`file` names it in errors).
OfflineImportance parse_importance(std::string_view text, const std::filesystem::path& file, const model::ModelConfig& m);

// models/shadowattn/<id>.importance.json under the current directory, else under the source tree;
// empty when neither exists.
std::filesystem::path find_importance_file(const std::string& model_id);

}  // namespace socsim::systems::shadowattn
