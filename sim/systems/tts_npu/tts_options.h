#pragma once
// Options of tts-npu (../shared/papers/tts-npu.md), the `tts:` section (`--set tts.exp=fp16`):
//
//   dequant       W4A16 weight layout of the HVX dequantization (kernels/gemm/dequant_layout.h):
//                 baseline | hmx-layout | coalesced | none (the GEMM ablation)       coalesced
//   exp           FlashAttention softmax exp on HVX: fp32 (FP32 polynomial) | fp16 (FP16
//                 polynomial) | lut (vgather table, 64 KiB of TCM)                   lut
//   lm_head_unit  cpu | npu: the vocabulary projection and its logits (the paper keeps
//                 them on the CPU so the logits stay out of the NPU's address space)   cpu
//   cpu_threads   CPU cores of the host's work (lm_head, sampling; the paper uses <= 4) 4
//   q8_0_down     FFN-down weights in Q8_0 (8.5 bits), the rest Q4_0 (4.5 bits)        true
//   prefetch      double-buffered weights: the next chunk's DMA during this chunk's
//                 dequantization (false: the kernel's steps in order, an upper bound)    true
//   kv_context    tokens of KV cache allocated per sample up front, as llama.cpp's n_ctx
//                 (the paper's memory experiment: 4096); 0 = prompt + decode              0
//   role          policy | reward: reward runs the model as a process reward model
//                 scoring the request's tokens (prefill only, a value head on the CPU
//                 instead of lm_head and sampling): Best-of-N's and beam search's
//                 scoring pass                                                          policy
#include <cstdint>

#include "kernels/gemm/dequant_layout.h"
#include "kernels/softmax/exp_variant.h"
#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"

namespace socsim::systems::tts {

struct Options {
  kernels::DequantLayout dequant = kernels::DequantLayout::kCoalesced;
  kernels::ExpVariant exp = kernels::ExpVariant::kLut;
  bool lm_head_on_npu = false;
  std::uint32_t cpu_threads = 4;
  bool q8_0_down = true;
  bool prefetch_weights = true;
  bool reward = false;
  std::uint64_t kv_context = 0;
  config::SourceLocation kv_context_at;  // where kv_context was given (errors about the KV cache's size)
};

// The names of the exp variants as the paper's ablation calls them.
const char* exp_option_name(kernels::ExpVariant v);

Options read_options(config::Section& root, const hw::SocSpec& soc);

}  // namespace socsim::systems::tts
