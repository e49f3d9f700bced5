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
//
// The service's chunk I/O path (chunk_io_path.h; the paper's prototype: Python, pickle, HF
// Transformers on CUDA). Properties of that software stack, not of the hardware:
//   io_granularity      layer: a chunk is stored and read layer by layer, as the paper's
//                       layer-wise swap/recompute pipeline needs; chunk: one request per chunk layer
//   io_file_cycles      CPU cycles per request to open, read and close a file from Python:
//                       four syscalls and the file objects, ~5 us on a ~4 GHz desktop core
//                       (assumption)                                                       20000
//   io_tensor_cycles    CPU cycles to unpickle (or pickle) one torch tensor. Public
//                       measurement: 10,000 pickled small torch tensors load in 0.393 s (39 us
//                       each; dump 35 us) on a desktop (discuss.pytorch.org, "Pickling tensors
//                       is much much slower than numpy arrays", 2022): pickling a tensor runs
//                       torch.save/torch.load on each storage. Taken at ~4 GHz               150000
//   io_host_copies      host copies of the stored bytes: page cache -> user buffer, pickle
//                       bytes -> tensor storage                                                2
//   io_upload           each tensor read is copied to the GPU (gpu.copy_fixed per tensor,
//                       gpu.copy_bandwidth) when the recompute system is gpu-only             true
#include <cstdint>
#include <string>

#include "sim/config/config_tree.h"

namespace socsim::systems::llms {

enum class IoGranularity { kLayer, kChunk };

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
  IoGranularity io_granularity = IoGranularity::kLayer;
  double io_file_cycles = 20000;
  double io_tensor_cycles = 150000;
  double io_host_copies = 2;
  bool io_upload = true;
  bool io_upload_given = false;  // set in the file or --set (refused where no upload happens)
};

const char* io_granularity_name(IoGranularity g);

// Throws config::ConfigError naming the key for a bad value or an unknown recompute system.
Options read_options(config::Section& root);

}  // namespace socsim::systems::llms
