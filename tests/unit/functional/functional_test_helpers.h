#pragma once
// Shared set-up for the functional-mode tests: a tiny model, plans with one placement for every
// op, and a writer of safetensors files.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/functional/forward_shape.h"
#include "sim/model/graph_builder.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"
#include "sim/systems/plan_builder.h"
#include "tests/support/scratch_dir.h"

namespace socsim::functional::test {

// hidden 64, 2 layers, 4 heads of 16 over 2 KV heads (GQA), SwiGLU, RMSNorm, q/k/v bias, tied.
inline model::ModelConfig tiny_model() {
  model::ModelConfig m;
  m.id = "tiny";
  m.model_type = "qwen2";
  m.hidden = 64;
  m.intermediate = 128;
  m.layers = 2;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.vocab = 100;
  m.max_context = 512;
  m.tied_embeddings = true;
  m.attention_bias = true;
  m.rope_theta = 10000.0;
  m.norm_eps = 1e-6;
  return m;
}

// phi-like: LayerNorm, GELU, plain two-matrix MLP, biases on every projection, untied head,
// partial rotary.
inline model::ModelConfig tiny_plain_model() {
  model::ModelConfig m = tiny_model();
  m.model_type = "phi";
  m.gated_mlp = false;
  m.norm = model::NormKind::kLayerNorm;
  m.activation = model::Activation::kGelu;
  m.attention_bias = m.output_bias = m.mlp_bias = true;
  m.tied_embeddings = false;
  m.rotary_fraction = 0.5;
  m.norm_eps = 1e-5;
  return m;
}

// Prefill (in chunks of `chunk` rows, 0 = whole; the last padded when `pad`) and decode, every
// op placed by `place` (matmuls) and `other` (everything else), as a sequential plan.
inline runtime::Plan uniform_plan(const model::ModelConfig& m, const ForwardShape& s, systems::Placement matmuls,
                                  systems::Placement other, std::uint64_t chunk = 0, bool pad = false) {
  runtime::Plan plan;
  systems::SequentialPlanBuilder b(
      [=](const model::GraphOp& g) { return g.op.kind == model::OpKind::kMatMul ? matmuls : other; },
      [](const model::GraphOp&) { return std::string(); });
  const auto prefill = model::prefill_graph(m, {s.prompt, chunk, s.sequences, false, pad}, pad);
  systems::build_prefill_decode(plan, b, m, prefill, {s.prompt, s.decode, s.sequences});
  return plan;
}

inline systems::Placement at(kernels::Unit u, runtime::Precision p) { return {u, p, 1}; }

struct RawTensor {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> bytes;
};

inline RawTensor f32_tensor(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  RawTensor t{"F32", std::move(shape), std::vector<unsigned char>(values.size() * 4)};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());  // the test hosts are little-endian
  return t;
}

// Writes a safetensors file; `header_edit` may alter the JSON header before it is written.
template <class Edit>
void write_safetensors(const std::filesystem::path& path, const std::map<std::string, RawTensor>& tensors, Edit header_edit,
                       std::uint64_t truncate_by = 0) {
  nlohmann::json h = nlohmann::json::object();
  std::vector<unsigned char> data;
  for (const auto& [name, t] : tensors) {
    h[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
    data.insert(data.end(), t.bytes.begin(), t.bytes.end());
  }
  h["__metadata__"] = {{"format", "pt"}};
  header_edit(h);
  const std::string header = h.dump();
  std::ofstream f(path, std::ios::binary);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) f.put(static_cast<char>((n >> (8 * i)) & 0xFF));
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() - truncate_by));
}

inline void write_safetensors(const std::filesystem::path& path, const std::map<std::string, RawTensor>& tensors) {
  write_safetensors(path, tensors, [](nlohmann::json&) {});
}

inline std::filesystem::path scratch(const std::string& name) {
  return socsim::test::fresh_scratch_dir("socsim_functional_test_", name);
}

}  // namespace socsim::functional::test
