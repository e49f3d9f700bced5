#pragma once
// The model graph of one request: every op of every layer, for the prompt (whole, or in chunks
// that each attend to all earlier tokens) and for each decode step (one new token per sequence,
// attending to a KV cache that grows by one). Strategies place these ops on units.
#include <cstdint>
#include <vector>

#include "sim/model/layer_ops.h"
#include "sim/model/model_config.h"

namespace socsim::model {

enum class Phase { kPrefill, kDecode };

struct GraphOp {
  OpDesc op;
  Phase phase = Phase::kPrefill;
  std::uint32_t layer = 0;  // decoder layer; layers() for the final norm and lm_head
  std::uint64_t step = 0;   // prefill: chunk index; decode: token index (0-based)
};

struct PrefillShape {
  std::uint64_t prompt = 0;     // tokens per sequence
  std::uint64_t chunk = 0;      // tokens per chunk; 0 = the whole prompt at once
  std::uint64_t sequences = 1;  // batch
  bool quantized_npu_graph = false;  // insert Quantize/Dequantize around matmuls (W8A8 NPU form)
  // Static graphs have fixed shapes: the last chunk is padded to `chunk` tokens when true.
  bool pad_last_chunk = false;
};

// Ops of the prefill, chunk by chunk, layer by layer, then the head (final norm and lm_head over
// the last chunk's rows: static graphs compute all of them, a dynamic runtime only the last one;
// `head_rows_all` chooses).
// Room in `out` for `need` ops, growing geometrically; throws HostMemoryExceeded (host_memory.h)
// first when the growth would pass this thread's host-memory limit. Graph builders call it
// before appending a chunk's layers.
void reserve_graph(std::vector<GraphOp>& out, std::size_t need);

std::vector<GraphOp> prefill_graph(const ModelConfig& m, const PrefillShape& s, bool head_rows_all);

// Ops of decode step `step` (0-based) after a prompt of `prompt` tokens: one token per sequence.
std::vector<GraphOp> decode_step_graph(const ModelConfig& m, std::uint64_t prompt, std::uint64_t step,
                                       std::uint64_t sequences);

// Bytes of K and V cached per token per sequence (all layers) at `bytes_per_element`.
double kv_cache_bytes_per_token(const ModelConfig& m, double bytes_per_element);

}  // namespace socsim::model
