#pragma once
// shadowAttn's offline importance calibration (../shared/papers/shadowattn.md section 2, Eq. 3),
// run in functional mode on synthetic data: the FP32 reference forward (functional/reference_forward.h)
// over a few seeded token sequences, once as is and once per ablation.
//
//   headImp[l, h] = loss(head h of layer l zeroed) - loss     (rows h*hd .. of o_proj set to zero)
//   layerImp[l]   = loss(layer l's attention zeroed) - loss   (all of o_proj set to zero)
//
// Loss. Synthetic weights have no text whose likelihood means anything, so the data are the
// model's own predictions: the loss is the cross-entropy of the ablated model's next-token
// distribution q against labels drawn from the unablated model's p, whose increase over the
// unablated loss is exactly KL(p || q) (E_p[-log q] - E_p[-log p]). We compute that KL in closed
// form (no sampling noise; >= 0, and 0 exactly when the ablation changes nothing), averaged over
// the last `scored` positions of every sequence. Cross-entropy against p's greedy tokens was the
// other choice; on near-flat synthetic distributions its difference is dominated by the argmax
// flipping and can go negative, which Eq. 3 has no use for.
//
// Cost, and what is approximated to keep it cheap (all stated in the report's system_info):
// - ablating in layer l changes only layers >= l, so the run goes layer by layer with each layer's
//   weights generated once: the unablated stream is copied before layer l for each of its
//   ablations, and every ablated stream runs on through the later layers;
// - only the first `layers` decoder layers are calibrated (the model truncated there, then the
//   final norm and the head, as --functional-layers): (heads + 1) x N (N + 1) / 2 layer passes.
//   Layers beyond get the calibrated means (head and layer), i.e. uniform ratios there;
// - the softmax runs over the first `vocab_rows` rows of the head (synthetic head rows are i.i.d.,
//   so a block is a random sample of the vocabulary); 0 = the whole vocabulary.
#include <cstdint>
#include <string>

#include "sim/functional/weight_source.h"
#include "sim/model/model_config.h"
#include "sim/systems/shadowattn/importance_types.h"

namespace socsim::systems::shadowattn {

// Layer forwards the calibration of `layers` layers of a model of `heads` heads runs.
std::uint64_t calibration_layer_passes(std::uint64_t layers, std::uint64_t heads);
// What a calibration costs the host, known before it runs: its layer passes, each a layer's
// weights (linear in the tokens) and its attention (quadratic), at the reference forward's rates
// measured on the 2-core reference machine (`socsim calibrate --model qwen2-0.5b --layers 1
// --sequences 1`, 16 passes: 5.9 s at --tokens 1024, 49.7 s at 4096, i.e. 0.37 and 3.1 s a pass:
// about 130 GFLOP/s in the FP32 GEMMs and 14 GFLOP/s in the double attention).
inline constexpr double kCalibrationGemmFlops = 130e9, kCalibrationAttentionFlops = 14e9;
double calibration_host_seconds(const model::ModelConfig& model, const CalibrationOptions& options);

// Throws std::invalid_argument for shapes that do not fit (tokens < scored, layers > model's, ...).
CalibratedImportance calibrate_importance(const model::ModelConfig& model, const functional::WeightSource& weights,
                                          std::uint64_t seed, const CalibrationOptions& options);

// The calibration on SyntheticWeights(model, seed), computed once per (model, seed, options) per
// process and cached (a sweep plans many runs of one model). Thread-safe.
const CalibratedImportance& cached_calibration(const model::ModelConfig& model, std::uint64_t seed, const CalibrationOptions& options);

}  // namespace socsim::systems::shadowattn
