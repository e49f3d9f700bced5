#pragma once
// tts-npu (../shared/papers/tts-npu.md): test-time scaling decodes N parallel samples as one
// batch on the NPU's HMX, whose 32-row tiles a single sequence leaves 31/32 idle. No static
// graphs: custom kernels (no graph call) that the host hands to an NPU thread through a polled
// shared-memory request queue over zero-copy buffers (SyncPolicy: shared buffers, polling).
//   NPU   every decoder-layer op: W4A16 matmuls (Q4_0, FFN-down Q8_0) dequantized on HVX into
//         FP16 tiles in TCM and multiplied on HMX even for one row (tts.dequant picks the weight
//         layout), FP16 FlashAttention with HMX matmuls and the HVX softmax exp of tts.exp over
//         each sample's own KV cache, norms/RoPE/activations on HVX; prefill the same way.
//   CPU   lm_head and the logits (tts.lm_head_unit=cpu, the default) on tts.cpu_threads cores,
//         and sampling.
// The NPU footprint (tts_memory.h) must fit the 32-bit address space (npu.address_space).
// tts.role=reward runs the model as the reward model of Best-of-N / beam search: a prefill over
// the request's tokens with a value head (hidden -> 1 per token) on the CPU.
// A policy's samples stop at an end-of-sequence token and leave the batch (llama.cpp's batched
// decoding): in functional mode each sample's length comes from its greedy tokens, and later
// decode steps run only the samples still going; timing mode decodes every sample to --decode.
#include <vector>

#include "sim/systems/system.h"
#include "sim/systems/tts_npu/tts_options.h"

namespace socsim::systems {

class TtsNpuSystem final : public System {
 public:
  std::string id() const override { return "tts-npu"; }
  void configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& model) override;
  runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) override;
  runtime::SyncPolicy sync_policy() const override;
  double weight_bits() const override { return 4.5; }
  bool decode_windows() const override { return true; }
  bool samples_stop_at_eos() const override { return !options_.reward; }
  std::string functional_unsupported() const override;
  void use_data(const runtime::DataDriven* data) override;

 private:
  tts::Options options_;
  std::vector<std::uint64_t> active_;  // measured: samples still going at each decode step (empty: all, every step)
  bool measured_ = false;
};

void register_tts_npu(SystemRegistry& r);

}  // namespace socsim::systems
