#include "sim/model/graph_builder.h"

#include <algorithm>
#include <stdexcept>

#include "sim/core/host_memory.h"
#include "sim/core/run_progress.h"

namespace socsim::model {

namespace {

void append_layers(std::vector<GraphOp>& out, const ModelConfig& m, const LayerShape& shape, Phase phase,
                   std::uint64_t step, bool quantized) {
  // Every layer has the same ops: built once, copied per layer.
  const std::vector<OpDesc> ops = decoder_layer_ops(m, shape, quantized);
  // Room for these layers and the head (a few ops) at once (a chunked prefill appends layers once
  // per chunk).
  reserve_graph(out, out.size() + ops.size() * m.layers + 4);
  for (std::uint32_t l = 0; l < m.layers; ++l) {
    for (const auto& op : ops) out.push_back({op, phase, l, step});
  }
}

void append_head(std::vector<GraphOp>& out, const ModelConfig& m, std::uint64_t rows, Phase phase, std::uint64_t step,
                 bool quantized) {
  for (auto& op : head_ops(m, rows, quantized)) out.push_back({std::move(op), phase, static_cast<std::uint32_t>(m.layers), step});
}

}  // namespace

void reserve_graph(std::vector<GraphOp>& out, std::size_t need) {
  if (out.capacity() >= need) return;
  const std::size_t capacity = std::max(need, 2 * out.capacity());
  // A prompt of a hundred thousand one-token chunks is millions of ops: stop at the host's limit
  // before allocating them, not after. (A growth under 1 MiB, every decode step's graph, is not
  // worth reading the process's resident memory for.)
  const std::size_t bytes = (capacity - out.capacity()) * sizeof(GraphOp);
  if (bytes >= (std::size_t{1} << 20)) check_host_memory_for(bytes);
  out.reserve(capacity);
}

std::vector<GraphOp> prefill_graph(const ModelConfig& m, const PrefillShape& s, bool head_rows_all) {
  if (s.prompt == 0) throw std::invalid_argument("prefill of an empty prompt");
  if (s.sequences == 0) throw std::invalid_argument("prefill with no sequence");
  const std::uint64_t chunk = s.chunk == 0 ? s.prompt : s.chunk;
  std::vector<GraphOp> out;
  std::uint64_t done = 0, index = 0, last_rows = 0;
  const std::uint64_t chunks = (s.prompt + chunk - 1) / chunk;
  while (done < s.prompt) {
    // A prompt in many short chunks is millions of ops (131,000 one-token graphs: 40 s of
    // allocation before the plan's first job): the progress line says where it is.
    progress_plan_search("the prefill's op graph, chunk", index + 1, chunks);
    const std::uint64_t real = std::min(chunk, s.prompt - done);
    const std::uint64_t rows = s.pad_last_chunk ? chunk : real;
    // Attention of this chunk sees every earlier token plus its own (causal inside the chunk).
    append_layers(out, m, {rows, done + rows, s.sequences}, Phase::kPrefill, index, s.quantized_npu_graph);
    done += real;
    last_rows = rows;
    ++index;
  }
  append_head(out, m, (head_rows_all ? last_rows : 1) * s.sequences, Phase::kPrefill, index - 1, s.quantized_npu_graph);
  return out;
}

std::vector<GraphOp> decode_step_graph(const ModelConfig& m, std::uint64_t prompt, std::uint64_t step,
                                       std::uint64_t sequences) {
  if (sequences == 0) throw std::invalid_argument("decode with no sequence");
  std::vector<GraphOp> out;
  // The token of step s attends to the prompt, the s tokens generated before it, and itself.
  append_layers(out, m, {1, prompt + step + 1, sequences}, Phase::kDecode, step, false);
  append_head(out, m, sequences, Phase::kDecode, step, false);
  return out;
}

double kv_cache_bytes_per_token(const ModelConfig& m, double bytes_per_element) {
  return 2.0 * static_cast<double>(m.layers * m.kv_heads * m.head_dim) * bytes_per_element;
}

}  // namespace socsim::model
