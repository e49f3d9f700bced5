#pragma once
// Options of shadowattn and its baselines (../shared/papers/shadowattn.md), the `shadowattn:`
// section (`--set shadowattn.sparsity=0.3`); they apply to all five systems.
//
//   sparsity         global kept fraction r (per-row k = ceil(ratio x visible keys))     0.2
//   cpu_cores        the CPU budget: cores of core_class running attention                1
//   core_class       prime | mid | little (small = little)                                mid
//   float_unit       cpu | gpu: where the float attention of cg-* and shadowattn's sparse
//                    attention run                                                        cpu
//   topk_unit        cpu | gpu: where top-k runs (cg-sparse, shadowattn); the paper's
//                    G-Sparse is float_unit=gpu with topk_unit=gpu                         cpu
//   pipeline         head-wise NPU/CPU overlap; false: all estimation of a layer first    true
//   fuse             heads sharing a bucket (and shape) in one NPU launch                 true
//   max_fuse         heads per fused launch (the paper measured 1, 2 and 4)               4
//   graph_io         client | shared: the NPU attention graphs' tensors (shadowattn's
//                    estimation, npu-full) are client buffers, synchronized on every
//                    execute (npu.graph.client_io_*), as the paper's 3.4 timings show
//                    (README, shadowAttn: graph I/O); shared: registered shared memory, as
//                    the llm.npu host's own graphs                                       client
//   reorder          the planner's order; false: heads in index order                      true
//   planner          best: the best of Algorithm 1, Johnson's rule and in-order (exact
//                    with one shared CPU lane; exhaustive up to 4 heads); paper: Algorithm
//                    1 alone (pipeline_planner.h)                                         best
//   buckets_enabled  precompiled graphs by scale bucket; false: a graph per head's own
//                    scales, built online on the request's path                           true
//   buckets, step    scale buckets (a k x k grid of multipliers step^i around the mean)  9, 0.5
//   scale_spread     timing mode: per-head scales drawn log-normal around the calibrated
//                    mean with this sigma in log space (an input, not measured: trained
//                    models' per-head scales vary widely, the paper's Figure 7; functional
//                    mode measures each head's scales instead)                            0.5
//   scale_centre     functional mode: calibrated (the grid around the offline scale
//                    calibration, scale_calibration.h) | oracle (around each chunk and
//                    layer's own mean scales, which no precompiled graph could know: an upper
//                    bound for the ablation)                                             calibrated
//   per_head_ratio   per-head ratios from importance (Eq. 3); false: r for every head    true
//   importance_clamp importance scores clamped to [mean / c, mean x c]                    4
//   importance       offline: the model's offline calibration file (importance_file.h;
//                    models/shadowattn/<model>.importance.json, or importance_file);
//                    calibrated: measured now, by ablation on synthetic weights in functional
//                    mode (importance_calibration.h), once per (model, seed) per process;
//                    synthetic: seeded head/layer importance. Default: offline when the model
//                    has a file, else synthetic (a warning; system_info.importance says so)
//   importance_file  a calibration file written by `socsim calibrate` (implies offline)
//   calibration_layers  decoder layers the calibrated importance is measured on (the model
//                    truncated there; later layers get the means); 0 = all                2
//   seed             the synthetic calibration (importance, per-head scales, calibration
//                    weights and tokens)                                                  1
#include <cstdint>
#include <string>

#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/systems/shadowattn/pipeline_planner.h"

namespace socsim::systems::shadowattn {

struct Options {
  double sparsity = 0.2;
  std::uint32_t cpu_cores = 1;
  std::string core_class = "mid";
  std::string cpu_cluster;  // the SoC's cluster of that class (read_options)
  // That cluster is of the little class (on one cluster every class is that one: not little).
  bool cpu_cluster_little = false;
  bool float_on_gpu = false;
  bool topk_on_gpu = false;
  bool pipeline = true;
  bool fuse = true;
  bool client_io = true;  // graph_io: client
  std::uint32_t max_fuse = 4;
  bool reorder = true;
  PlannerKind planner = PlannerKind::kBest;
  bool buckets_enabled = true;
  std::uint32_t buckets = 9;
  double step = 0.5;
  double scale_spread = 0.5;
  bool oracle_scale_centre = false;
  bool per_head_ratio = true;
  double importance_clamp = 4.0;
  enum class ImportanceSource { kAuto, kOffline, kCalibrated, kSynthetic };
  ImportanceSource importance = ImportanceSource::kAuto;
  std::string importance_file;
  config::SourceLocation importance_where;  // for the error when an offline file is missing
  std::uint64_t calibration_layers = 2;
  std::uint64_t seed = 1;
};

Options read_options(config::Section& root, const hw::SocSpec& soc);

}  // namespace socsim::systems::shadowattn
