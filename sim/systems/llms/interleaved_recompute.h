#pragma once
// Exact recompute of interleaved missing chunks (LLMS §3.3, Figure 7), functional face: given the
// text of a context and the resident K/V of every position except the missing ones, compute the
// missing positions' K/V layer by layer. Per layer: the missing tokens' hidden states (their
// embeddings at layer 0) are projected to Q/K/V, RoPE is applied at their GLOBAL positions, their
// K/V are inserted among the resident ones, and each attends causally to every earlier position
// (resident or recomputed); only the missing tokens proceed through the rest of the layer.
//
// The model here is a small seeded FP32 decoder (RMSNorm, rotate-half RoPE, causal attention,
// ReLU MLP, residuals) built from the kernels (gemm_f32, rms_norm, apply_rope, RowAttender): what
// the test checks is the algorithm (positions, causal visibility, layer order), against a full
// prefill of the same model.
#include <cstdint>
#include <vector>

#include "kernels/tensor/tensor.h"

namespace socsim::systems::llms {

struct TinyDecoder {
  std::int64_t vocab = 0, hidden = 0, heads = 0, head_dim = 0, ffn = 0, layers = 0;
  kernels::Tensor embedding;  // [vocab, hidden]
  struct Layer {
    std::vector<float> attn_norm, mlp_norm;
    kernels::Tensor wq, wk, wv, wo, w1, w2;  // [in, out]
  };
  std::vector<Layer> layer;

  static TinyDecoder synthetic(std::int64_t vocab, std::int64_t hidden, std::int64_t heads, std::int64_t ffn, std::int64_t layers,
                               std::uint64_t seed);
};

struct LayerKv {
  kernels::Tensor k, v;  // [heads, positions, head_dim]
};

// K/V of every layer at every position: a full prefill. `queries`, when given, receives each
// layer's rotated queries [positions, heads x head_dim].
std::vector<LayerKv> prefill_kv(const TinyDecoder& m, const std::vector<int>& tokens, std::vector<kernels::Tensor>* queries = nullptr);

// Appends to a growing cache: fills the K/V rows of positions first..tokens.size()-1 (kv sized
// for all of them; rows before `first` hold the context's K/V) and returns their queries. RoPE
// rotates cache row i at global position rope_offset + i, so a context whose oldest rows were
// dropped (a sliding window) keeps its relative positions.
void extend_kv(const TinyDecoder& m, const std::vector<int>& tokens, std::int64_t first, std::vector<LayerKv>& kv,
               std::vector<kernels::Tensor>* queries, std::uint64_t rope_offset);

// Fills the K/V rows of `missing` (ascending positions) in `kv` from the text; the other rows
// must hold the resident K/V. `global_positions` = false rotates the missing tokens as if they
// were a contiguous prompt 0..m-1 (the bug the paper's design avoids; for the test's contrast).
void recompute_missing(const TinyDecoder& m, const std::vector<int>& tokens, const std::vector<std::int64_t>& missing,
                       std::vector<LayerKv>& kv, bool global_positions = true);

}  // namespace socsim::systems::llms
