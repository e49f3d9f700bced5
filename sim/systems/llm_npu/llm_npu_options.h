#pragma once
// Options of the llm-npu strategy (llm.npu, ../shared/papers/llm-npu.md), read from the
// `llm_npu:` section (`--set llm_npu.chunk=512`). Defaults are the paper's.
//
//   chunk            prompt tokens per chunk (static NPU graphs are built for this length)   256
//   shadow_outliers  W8A8 per-tensor matmuls + outliers on the CPU; false: per-group INT8   true
//   activation_scale offline (the profiled per-tensor scale that leaves outlier channels out
//                    of range, for the shadow path) | minmax (plain per-tensor W8A8: the scale
//                    spans the outliers, no shadow work; the accuracy ablation)             offline
//   outlier_prune    share of layers whose outliers are dropped (least important first)    0.85
//   outlier_channels input channels holding outliers per matmul input and chunk (5-15)     10
//   hot_channels     share of channels whose weight rows stay in memory (< 3% give > 80%
//                    of outliers)                                                          0.03
//   hot_hit          share of outliers that fall in hot channels                            0.8
//                    (given hot_channels alone: hot_hit_of(hot_channels), below)
//   ooe              out-of-order subgraph scheduling (the NPU-stall picker); false: chunks
//                    and subgraphs in program order, one at a time                          true
//   float_unit       cpu | gpu: where norms, attention and shadow outliers run              cpu
//   cpu_threads      cores of the CPU float subgraphs and of decode (default: big + mid)
//   prepared         graphs built in the preparation stage (off the request's path)         true
//   equivalent_shapes  NPU linear layers run the fastest equivalent shape of their input,
//                    profiled at preparation (llm.npu 4: [32, 32, 2048] for [1024, 1, 2048]);
//                    false: the token-major [tokens, 1, hidden] as it enters the graph      true
#include <cstdint>
#include <string>

#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"

namespace socsim::systems::llm_npu {

struct Options {
  std::uint64_t chunk = 256;
  bool shadow_outliers = true;
  bool minmax_scale = false;
  double outlier_prune = 0.85;
  std::uint64_t outlier_channels = 10;
  double hot_channels = 0.03;
  double hot_hit = 0.8;
  bool ooe = true;
  bool float_on_gpu = false;
  // CPU float ops (attention's two GEMMs) in FP16: llm.npu runs its float parts "FP16/FP32" on
  // mllm's CPU backend, whose KV cache is FP16 and whose FP16 GEMMs use ARMv8.2 FP16 FMAs.
  // `llm_npu.cpu_float: fp16|fp32`.
  bool cpu_fp16 = true;
  std::uint32_t cpu_threads = 0;
  bool prepared = true;
  bool equivalent_shapes = true;
};

// The share of outliers that fall in the hot channels when the `hot_channels` share of channels
// with the most outliers is resident: concave from (0, 0) through llm.npu's Figure 11 (fewer than
// 3% of channels produce more than 80% of outliers) to (1, 1), as h^(ln 0.8 / ln 0.03). The
// curve's shape between those points is a reconstruction (the paper gives the one point); with
// hot_channels set and hot_hit not, timing mode's cold rows follow it instead of staying at 0.8.
double hot_hit_of(double hot_channels);

// Reads `llm_npu:` from the root of the config tree (absent: defaults); ConfigError on bad values.
// `model`, when given, bounds what depends on it (outlier_channels <= its hidden size).
Options read_options(config::Section& root, const hw::SocSpec& soc, const model::ModelConfig* model = nullptr);

}  // namespace socsim::systems::llm_npu
