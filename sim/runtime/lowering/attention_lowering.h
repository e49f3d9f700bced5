#pragma once
// A layer's attention is three model ops (attn_scores, softmax, attn_context; layer_ops.cpp) but
// one attention kernel. Each op lowers the kernel for the layer's shape and takes its part:
//   attn_scores   Q K^T: the kernel's qk tasks/steps (and, on the NPU, the DMA of Q, K and V in)
//   softmax       the kernel's softmax tasks/steps
//   attn_context  P V: its pv tasks/steps (and the DMA of O out)
// so the three ops' work is exactly the kernel's, attributed by phase (an NPU flash kernel's
// interleaved qk/softmax/pv chunks run grouped by phase: steps run in order without overlap,
// so the total is the same). Kernels per unit and precision:
//   CPU, GPU   the FP32 full causal kernel (kernels/attention/attention_lower.h): its mat-muls
//              compute the whole m x (p0 + m) rectangle, the softmax only the visible scores
//              (visible_total); K and V are read per query head from the FP16 cache, as that
//              kernel does. One query row per head (decode): the same kernel
//              as mat-vec kernels (attention_decode_lower.h).
//   NPU        kW8A8 / kW8A8Group: lower_attention_int8_npu (int8_attention.h): a static graph
//              computing the dense rectangle (m x (p0 + m) per head), exact FP32 softmax. Its
//              graph call (8 nodes per head) is the job's: all its nodes are counted with
//              attn_scores (graph_nodes), softmax and attn_context add none.
//              kFp16 / kW4A16 / kFp32: FP16 flash attention (flash_lower.h, TTS; default
//              FlashParams: 64-key tiles, 32-row query blocks, LUT exp) as a custom kernel in
//              the graph with K and V in DRAM (home kDram). Unlike a plain static graph it does
//              not compute the whole rectangle: key tiles wholly in a query block's future are
//              skipped (the rest of the rectangle is computed and masked). One graph node per op,
//              as for any other op.
// Batched sequences are independent attentions: they fold into the kernel's heads (op.batch =
// heads x sequences query heads, each sequence with its own kv heads).
#include <array>
#include <cstdint>
#include <map>
#include <tuple>

#include "kernels/attention/attention_shape.h"
#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"
#include "sim/model/layer_ops.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"

namespace socsim::runtime::lowering {

enum class AttentionPart { kScores, kSoftmax, kContext };

bool is_attention_op(model::OpKind k);
AttentionPart attention_part(model::OpKind k);  // throws std::invalid_argument for other kinds

// The kernel shape of a layer's attention from its attn_scores or attn_context op: q_len =
// tokens, kv_len = context, queries at the last positions (q_pos0 = context - tokens).
kernels::AttentionShape attention_shape_of(const model::OpDesc& op, const model::ModelConfig& m);
// Elements of the layer's softmax op for that shape (heads x tokens x context).
std::uint64_t softmax_elements(const kernels::AttentionShape& s);

// The part of a kernel's tasks/steps that belongs to a part (by the kernels' task and step names;
// an unknown name throws std::logic_error, so a kernel change cannot silently drop work).
AttentionPart part_of_step(const std::string& name);

// The whole kernel per unit (what the parts partition). The NPU one includes its graph call.
// CPU: the GEMMs in FP16 for a kFp16 job (an FP16 KV cache and FP16 FMAs), FP32 otherwise.
kernels::CpuWork attention_kernel_cpu(const kernels::AttentionShape& s, std::uint32_t threads, Precision p = Precision::kFp32);
kernels::GpuWork attention_kernel_gpu(const kernels::AttentionShape& s);
// `exp`: the FP16 flash kernel's softmax exp (the INT8 graph's is exact FP32 whatever it says).
kernels::NpuWork attention_kernel_npu(const kernels::AttentionShape& s, Precision p, const hw::NpuSpec& npu,
                                      kernels::ExpVariant exp = kernels::ExpVariant::kLut);

struct NpuAttentionPart {
  kernels::NpuWork work;        // no graph_call steps
  std::uint32_t graph_nodes = 0;
  std::uint64_t graph_io_bytes = 0;  // the graph call's I/O (with graph_nodes, on attn_scores)
};
// The three parts of one NPU attention kernel (indexed by AttentionPart) from one lowering, each
// coalesced (npu_step_coalescing.h) as lower_op_npu would: the flash kernel's steps are streamed
// into their part's coalescer as they are made, never held whole (a batch's prompt kernel listed
// some 50,000 steps that end as a handful, and making and holding them was most of a run).
std::array<NpuAttentionPart, 3> lower_attention_parts_npu(const kernels::AttentionShape& s, Precision p, const hw::NpuSpec& npu,
                                                          kernels::ExpVariant exp);
// lower_attention_parts_npu memoized for one NPU: a layer's three attention ops lower the same
// kernel for the same shape one after another (a decode step's KV length is new each step), and
// lowering the whole kernel once per part tripled the cost. Each part is handed over (moved) once
// and the kernel forgotten when all three are: the caller keeps its own copy (the lowering cache),
// and keeping them here as well held a long prompt's or a big batch's kernels twice (hundreds of
// MiB, before the parts came coalesced). A part asked for again lowers the kernel again. Bounded:
// starts over past kLimit.
class NpuAttentionParts {
 public:
  explicit NpuAttentionParts(const hw::NpuSpec& npu) : npu_(npu) {}
  static constexpr std::size_t kLimit = 16;
  NpuAttentionPart take(const kernels::AttentionShape& s, AttentionPart part, Precision p, kernels::ExpVariant exp);
  std::size_t kernels_held() const { return parts_.size(); }

 private:
  using Key = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, int, int>;
  struct Held {
    std::array<NpuAttentionPart, 3> parts;
    std::array<bool, 3> taken{};
  };
  const hw::NpuSpec& npu_;
  std::map<Key, Held> parts_;
};
kernels::CpuWork lower_attention_part_cpu(const kernels::AttentionShape& s, AttentionPart part, std::uint32_t threads,
                                          Precision p = Precision::kFp32);
kernels::GpuWork lower_attention_part_gpu(const kernels::AttentionShape& s, AttentionPart part);
NpuAttentionPart lower_attention_part_npu(const kernels::AttentionShape& s, AttentionPart part, Precision p, const hw::NpuSpec& npu,
                                          kernels::ExpVariant exp = kernels::ExpVariant::kLut);

}  // namespace socsim::runtime::lowering
