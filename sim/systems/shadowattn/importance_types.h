#pragma once
// What shadowAttn's importance calibration takes and gives (importance_calibration.h computes it,
// importance_file.h stores it); apart so the file's parser needs no kernels.
#include <cstdint>
#include <functional>

#include "sim/systems/shadowattn/calibration.h"

namespace socsim::systems::shadowattn {

struct CalibrationOptions {
  std::uint64_t sequences = 2, tokens = 32;
  std::uint64_t scored = 8;         // last positions of each sequence whose prediction is scored
  std::uint64_t layers = 0;         // decoder layers calibrated; 0 = all
  std::uint64_t vocab_rows = 4096;  // head rows in the softmax; 0 = all
  // Called after each layer forward (a pass) with the layer it calibrates (1-based) and the passes
  // done of all (progress lines); not part of the calibration's identity (cached_calibration
  // ignores it).
  std::function<void(std::uint64_t layer, std::uint64_t layers, std::uint64_t pass, std::uint64_t passes)> on_pass;
};

struct CalibratedImportance {
  Importance importance;  // every layer (layers beyond the calibrated ones: the means)
  std::uint64_t layers_calibrated = 0;
  std::uint64_t layer_passes = 0;  // decoder-layer forwards run (the cost)
  double base_entropy = 0;         // mean entropy of p (nats): the scale the KLs compare with
};

}  // namespace socsim::systems::shadowattn
