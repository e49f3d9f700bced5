#pragma once
// Functional-mode chunk densities (LLMS §3.2; `socsim serve --mode functional`): one served
// context's text is run through a decoder as it grows call by call, each call's new tokens
// attending over the whole context, and every token's information density is the paper's
// attention-score formula accumulated over all the rows that have seen it so far: the sum of the
// attention it received (mean over layers and heads) divided by the number of rows that can see
// it (token_density, applied to each block of scored rows and accumulated). A chunk's density is the
// mean over its tokens (chunk_density), so old chunks keep being re-ranked by what later calls
// attend to.
//
// The decoder is the seeded stand-in of interleaved_recompute.h, not the served model: a 7B
// forward over thousands of tokens per call would take minutes per call on this machine, and the
// served model's weights are not part of the simulator (it models costs, not logits). The
// stand-in's random weights give fairly flat attention, so the ranking it produces is real
// attention but not a trained model's.
#include <cstdint>
#include <vector>

#include "kernels/tensor/tensor.h"
#include "sim/systems/llms/interleaved_recompute.h"

namespace socsim::systems::llms {

// The stand-in used by `serve --mode functional`: one layer, 2 heads of 16 (hidden 32), vocab
// 512. With one layer a new token's K/V are projections of its embedding (no attention needed to
// produce them), so a call costs its scored rows x the window; a second layer makes every new
// token attend over the window first. Measured for 4 Llama-2 contexts over 2 h at the 4096-token
// window: 2 layers scoring every row 44 s; this stand-in scoring each call's last 64 rows 3.5 s.
TinyDecoder density_stand_in(std::uint64_t seed);

// Rows of each call whose attention updates the densities in serve's functional mode: the call's
// last 64 (the rows nearest the answer the call produces). Scoring every row of a 2000-token call
// over a 4k window is what made functional runs take minutes.
inline constexpr std::uint32_t kServeScoredRows = 64;

class ContextAttention {
 public:
  // scored_rows: how many of each call's last rows add their attention to the densities (0: all,
  // the paper's formula over every row; the earlier rows still attend and extend the cache).
  ContextAttention(const TinyDecoder& m, std::uint32_t chunk_tokens, std::uint32_t scored_rows = 0);

  std::uint64_t tokens() const { return ids_.size(); }
  // The sliding window: the oldest `count` tokens leave (their K/V and densities with them);
  // the others keep their global RoPE positions.
  void drop_front(std::uint64_t count);
  // Runs the decoder over `new_ids` (the call's tokens, appended) with attention over the whole
  // context and updates every token's density.
  void extend(const std::vector<int>& new_ids);
  // Current densities of every chunk of chunk_tokens (the last may be short).
  std::vector<double> chunk_densities() const;
  // Attention-output relative error of the last call's final `query_rows` rows (at most the
  // last block's) over the cache compressed to `level` per chunk, vs the INT8 cache.
  double compressed_error(const std::vector<int>& level, std::int64_t query_rows) const;

 private:
  void extend_block(const std::vector<int>& block, bool scored);

  const TinyDecoder& m_;
  std::uint32_t chunk_tokens_, scored_rows_;
  std::vector<int> ids_;
  std::vector<LayerKv> kv_;
  std::uint64_t rope_offset_ = 0;           // global position of cache row 0
  std::vector<double> mass_, seen_;         // per token: attention received (mean over maps), rows that saw it
  std::vector<kernels::Tensor> last_q_;     // queries of the last block, per layer
};

}  // namespace socsim::systems::llms
