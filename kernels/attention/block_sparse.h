#pragma once
// Block-sparse attention with pooled estimation (shadowAttn's C/G-Block-Sparse baseline), FP32.
//
// Estimation: Q rows and K rows are mean-pooled per block of B (default 64; partial last blocks
// average the rows they have), and each head scores its query blocks against its kv head's key
// blocks by pooled q.k. Selection, per (head, query block a): the key blocks visible to the
// block's last query are candidates (b B <= p0 + last row); the diagonal block, which holds the
// position of the block's first query, is always kept (so every row keeps at least one visible
// key), plus the best other candidates by pooled score (ties: lower block first) up to
// k = keep_blocks, or ceil(keep_ratio * candidates) when keep_blocks is 0 (at least 1).
// Attention: each row attends, exactly, to the causally visible keys of its block's selected
// blocks.
// `lower` (attention_lower.h) derives k per block from the same rule, so timing-only runs need
// no data.
#include <cstdint>
#include <optional>

#include "kernels/attention/attention_shape.h"
#include "kernels/topk/topk.h"

namespace socsim::kernels {

struct BlockSparseParams {
  std::uint64_t block = 64;
  std::uint64_t keep_blocks = 0;  // > 0: fixed count per query block
  double keep_ratio = 0.2;        // used when keep_blocks == 0
};

std::uint64_t query_blocks(const AttentionShape& s, std::uint64_t block);
// Candidate key blocks of query block a: floor((p0 + last row of a) / B) + 1.
std::uint64_t candidate_key_blocks(const AttentionShape& s, std::uint64_t block, std::uint64_t a);
std::uint64_t blocks_to_keep(const BlockSparseParams& p, std::uint64_t candidates);

struct BlockSelection {
  std::uint64_t block = 64, q_blocks = 0;
  RowIndices blocks;  // heads * q_blocks lists of key blocks, ascending
};

// Pooled scores [heads, q_blocks, key blocks over keys_used()] F32 (every pair, no masking).
Tensor pooled_block_scores(const Tensor& q, const Tensor& k, std::uint64_t p0, std::uint64_t block);
BlockSelection select_blocks(const Tensor& q, const Tensor& k, std::uint64_t p0, const BlockSparseParams& p);
Tensor block_sparse_attention_f32(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const BlockSelection& sel,
                                  std::optional<float> scale = std::nullopt);

}  // namespace socsim::kernels
