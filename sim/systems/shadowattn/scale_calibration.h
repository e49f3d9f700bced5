#pragma once
// shadowAttn's offline scale calibration (../shared/papers/shadowattn.md section 4): the mean
// per-head scale pair (lamQ, lamK) on calibration data, the centre of the bucket grid
// (calibration.h). The paper computes it once, offline, from its calibration set; here the FP32
// reference forward (functional/reference_forward.h) runs `sequences` seeded token sequences of
// `chunks` llm.npu chunks of `chunk` tokens through the run's own weights, and every (sequence,
// chunk, layer, query head) contributes what its estimation graph would quantize with:
//   q = absmax(Q rows of the chunk, after RoPE) / 127,
//   k = absmax(K rows of its KV head visible to the chunk, positions 0 .. chunk end) / 127.
// Later chunks' K scales cover more keys, so the calibration runs several chunks as the
// estimation sees them. One centre serves every layer, as the paper's one grid: layers whose
// scales sit below the model's mean go to the lower buckets.
// lamQ, lamK are the arithmetic means (the paper's "mean scale pair"); the spread in log space is
// kept for the report. The calibration tokens are a draw of their own (`seed`), never the input
// the run then measures, so an input whose scales sit far from the calibration's saturates or
// wastes INT8 range exactly as a static graph would.
#include <cstdint>

#include "sim/functional/weight_source.h"
#include "sim/model/model_config.h"
#include "sim/systems/shadowattn/calibration.h"

namespace socsim::systems::shadowattn {

struct ScaleCalibrationOptions {
  std::uint64_t sequences = 2, chunks = 2, chunk = 256;
  std::uint64_t layers = 0;  // decoder layers measured; 0 = all
};

struct CalibratedScales {
  ScalePair mean;                      // the grid's centre
  double log_sd_q = 0, log_sd_k = 0;   // standard deviation of log(scale) over the samples
  std::uint64_t samples = 0;           // (sequence, chunk, layer, head)
};

// Throws std::invalid_argument for an empty calibration or more layers than the model has.
CalibratedScales calibrate_scales(const model::ModelConfig& model, const functional::WeightSource& weights, std::uint64_t seed,
                                  const ScaleCalibrationOptions& options);

}  // namespace socsim::systems::shadowattn
