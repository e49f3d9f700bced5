#pragma once
// The operators of one decoder layer with their shapes: the seed of the model graph. The graph
// builder of the runtime expands this per chunk and per decode step; the NPU graph-build cost model
// counts it; kernels lower each op for a unit.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/model_config.h"

namespace socsim::model {

enum class OpKind {
  kNorm,          // RMSNorm / LayerNorm over hidden
  kMatMul,        // activation [m x k] x weight [k x n]
  kBiasAdd,
  kRope,
  kAttnScores,    // Q K^T per head: [tokens x head_dim] x [head_dim x context]
  kSoftmax,
  kAttnContext,   // P V per head
  kActivation,    // SiLU / GELU
  kElementwise,   // gating multiply, residual add
  kQuantize,      // float -> INT8 at the input of a quantized NPU subgraph
  kDequantize,    // INT8/INT32 -> float at its output
  // shadowAttn's sparse-attention ops (sim/systems/shadowattn/; never in the model graph). Shapes
  // as attn_scores: m query rows, k head dim, n keys (context), batch query heads (kv heads =
  // batch / GQA group, at least 1); the kept fraction in millionths in weight_params.
  kQkEstimate,    // INT8 per-head Q K^T estimation graph (NPU)
  kTopK,          // top-k per row over the raw scores, causal positions skipped (CPU)
  kSparseAttn,    // FP32 attention over the kept (row, key) pairs: elements = kept pairs
  kBlockSparseAttn,  // FP32 block-sparse attention, 64x64 pooled estimation and selection
  kPipelinePlan,  // the online head-wise pipeline planner (CPU): elements = scalar ops, one per cycle
};

const char* op_kind_name(OpKind k);

struct OpDesc {
  std::string name;  // "q_proj", "attn_scores", ...
  OpKind kind;
  std::uint64_t m = 0, k = 0, n = 0;     // GEMM-like shape (matmul and attention), else 0
  std::uint64_t batch = 1;               // heads for attention ops
  std::uint64_t elements = 0;            // elements produced (for non-GEMM ops)
  std::uint64_t weight_params = 0;       // static weights the op reads
};

struct LayerShape {
  std::uint64_t tokens = 0;     // new tokens per sequence (a prompt chunk, or 1 in decode)
  std::uint64_t context = 0;    // keys visible to the last of them (cache + these tokens)
  std::uint64_t sequences = 1;  // sequences processed together (batch): matmuls see
                                // tokens x sequences rows, attention runs per sequence
};

// Arithmetic work of an op (multiply-adds count 2): matmuls and attention exactly, elementwise
// ops by a per-element count (norm ~5, rope ~6, softmax ~5, activation ~8, others 1-2).
double op_flops(const OpDesc& op);
// Bytes of static weights an op reads at `bits_per_weight`.
double op_weight_bytes(const OpDesc& op, double bits_per_weight);

// `quantized_npu_graph`: the W8A8 NPU form (llm.npu): each group of matmuls sharing an input is
// preceded by a Quantize and each matmul followed by a Dequantize, as QNN graphs of that form have.
std::vector<OpDesc> decoder_layer_ops(const ModelConfig& m, const LayerShape& s, bool quantized_npu_graph);

// Which earlier op of `ops` (a run of ops in graph order, as one static graph holds them) each op
// consumes, or -1 for the run's input. The lists above are chains except for matmul groups: a
// Dequantize consumes the matmul before it, and the second and later matmuls of a group (same rows
// and input width, separated only by their siblings' Dequantize nodes) consume the group's input,
// as the first does. Every other op consumes the op before it (conservative: a bias add waits for
// the previous sibling's). The NPU runtime runs a static graph's nodes as this dataflow.
std::vector<std::int32_t> op_inputs(const std::vector<OpDesc>& ops);

// Final norm and lm_head over `tokens` rows (prefill needs only the last row's logits, but static
// graphs compute all rows of the chunk).
std::vector<OpDesc> head_ops(const ModelConfig& m, std::uint64_t tokens, bool quantized_npu_graph);

}  // namespace socsim::model
