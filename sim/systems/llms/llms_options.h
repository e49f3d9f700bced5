#pragma once
// Options of the LLMS service simulation (../shared/papers/llms.md), the `llms:` section
// (`--set llms.chunk_tokens=32`). The three technique switches exist for the paper's ablation
// (Figure 13); they only apply to --policy llms.
//
//   chunk_tokens        tokens per KV chunk (paper default, Figure 14)                  16
//   global_ratio        kept fraction of the INT8 bits over a context (OS-set)          0.5
//   compression         tolerance-aware compression; false: every chunk stays INT8      true
//   recompute_pipeline  swap/recompute pipeline; false: every missing chunk is read     true
//   lifecycle           ahead-of-time swap-out + LCTRU; false: write-back on eviction
//                       and plain LRU                                                    true
//   recompute_system    the registered system whose prefill times a recompute           gpu-only
//   density_sigma       timing mode: chunk densities are lognormal(0, sigma)             1.0
//   markov_decay        markov pattern: P(context of recency rank r) ~ decay^r          0.5
//   max_context         the service's cap on a context's length in tokens (the paper's
//                       "maximum context length", Figure 11); 0: the model's window         0
#include <cstdint>
#include <string>

#include "sim/config/config_tree.h"

namespace socsim::systems::llms {

struct Options {
  std::uint32_t chunk_tokens = 16;
  double global_ratio = 0.5;
  bool compression = true;
  bool recompute_pipeline = true;
  bool lifecycle = true;
  std::string recompute_system = "gpu-only";
  double density_sigma = 1.0;
  double markov_decay = 0.5;
  std::uint64_t max_context = 0;
};

// Throws config::ConfigError naming the key for a bad value or an unknown recompute system.
Options read_options(config::Section& root);

}  // namespace socsim::systems::llms
