#include "sim/functional/safetensors_weights.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

namespace socsim::functional {

namespace {

std::string layer_prefix(std::uint32_t l) { return "model.layers." + std::to_string(l) + "."; }

// The MLP's bias tensors within a layer and their sizes: gate, up, down (or fc1, fc2).
std::vector<std::pair<std::string, std::int64_t>> mlp_bias_names(const model::ModelConfig& m) {
  const auto h = static_cast<std::int64_t>(m.hidden), inter = static_cast<std::int64_t>(m.intermediate);
  if (m.gated_mlp) return {{"mlp.gate_proj.bias", inter}, {"mlp.up_proj.bias", inter}, {"mlp.down_proj.bias", h}};
  return {{"mlp.fc1.bias", inter}, {"mlp.fc2.bias", h}};
}

}  // namespace

SafetensorsWeights::SafetensorsWeights(const std::filesystem::path& file, const model::ModelConfig& m)
    : file_(file), model_(m) {
  std::set<std::string> read;  // every tensor the model reads
  const auto require = [&](const std::string& name, const std::vector<std::int64_t>& shape) {
    file_.require(name, shape);
    read.insert(name);
  };
  const auto h = static_cast<std::int64_t>(m.hidden), inter = static_cast<std::int64_t>(m.intermediate);
  const auto q_dim = static_cast<std::int64_t>(m.heads * m.head_dim), kv_dim = static_cast<std::int64_t>(m.kv_heads * m.head_dim);
  const bool ln = m.norm == model::NormKind::kLayerNorm;
  const auto norm = [&](const std::string& prefix) {
    require(prefix + ".weight", {h});
    if (ln) require(prefix + ".bias", {h});
  };
  require("model.embed_tokens.weight", {static_cast<std::int64_t>(m.vocab), h});
  for (std::uint32_t l = 0; l < m.layers; ++l) {
    const std::string p = layer_prefix(l);
    norm(p + "input_layernorm");
    norm(p + "post_attention_layernorm");
    require(p + "self_attn.q_proj.weight", {q_dim, h});
    require(p + "self_attn.k_proj.weight", {kv_dim, h});
    require(p + "self_attn.v_proj.weight", {kv_dim, h});
    require(p + "self_attn.o_proj.weight", {h, q_dim});
    if (m.attention_bias) {
      require(p + "self_attn.q_proj.bias", {q_dim});
      require(p + "self_attn.k_proj.bias", {kv_dim});
      require(p + "self_attn.v_proj.bias", {kv_dim});
    }
    if (m.output_bias) require(p + "self_attn.o_proj.bias", {h});
    if (m.gated_mlp) {
      require(p + "mlp.gate_proj.weight", {inter, h});
      require(p + "mlp.up_proj.weight", {inter, h});
      require(p + "mlp.down_proj.weight", {h, inter});
    } else {
      require(p + "mlp.fc1.weight", {inter, h});
      require(p + "mlp.fc2.weight", {h, inter});
    }
    if (m.mlp_bias) {
      for (const auto& [name, size] : mlp_bias_names(m)) require(p + name, {size});
    }
  }
  norm("model.norm");
  require(head_name(), {static_cast<std::int64_t>(m.vocab), h});
  // Tensors the model does not read: a checkpoint of another configuration (more layers, another
  // MLP) runs on without them, so say it (a stored lm_head.weight beside tied embeddings is one:
  // Hugging Face ignores it too).
  std::size_t unread = 0;
  std::string example;
  for (const auto& name : file_.names()) {
    if (read.count(name) > 0) continue;
    if (unread++ == 0) example = name;
  }
  if (unread > 0) {
    spdlog::warn("{}: {} tensor(s) that {} does not read, e.g. '{}': are these the weights of this configuration?", file.string(), unread,
                 m.id, example);
  }
}

std::string SafetensorsWeights::head_name() const {
  // Tied models use the embedding (Hugging Face ignores a stored lm_head.weight then).
  return model_.tied_embeddings ? "model.embed_tokens.weight" : "lm_head.weight";
}

kernels::Tensor SafetensorsWeights::transposed(const std::string& name, std::int64_t out, std::int64_t in) const {
  const std::vector<float> w = file_.read(name);  // [out, in]
  kernels::Tensor t = kernels::Tensor::matrix(in, out, kernels::ElemType::kF32);
  auto d = t.data<float>();
  // Blocked so both sides stay in cache for large matrices.
  constexpr std::int64_t kB = 64;
  for (std::int64_t o0 = 0; o0 < out; o0 += kB) {
    for (std::int64_t i0 = 0; i0 < in; i0 += kB) {
      for (std::int64_t o = o0; o < std::min(out, o0 + kB); ++o) {
        for (std::int64_t i = i0; i < std::min(in, i0 + kB); ++i) d[i * out + o] = w[o * in + i];
      }
    }
  }
  return t;
}

NormWeights SafetensorsWeights::norm(const std::string& prefix) const {
  NormWeights n;
  n.weight = file_.read(prefix + ".weight");
  if (model_.norm == model::NormKind::kLayerNorm) n.bias = file_.read(prefix + ".bias");
  return n;
}

LayerWeights SafetensorsWeights::layer(std::uint32_t l) const {
  const auto h = static_cast<std::int64_t>(model_.hidden), inter = static_cast<std::int64_t>(model_.intermediate);
  const auto q_dim = static_cast<std::int64_t>(model_.heads * model_.head_dim);
  const auto kv_dim = static_cast<std::int64_t>(model_.kv_heads * model_.head_dim);
  const std::string p = layer_prefix(l);
  LayerWeights w;
  w.q = transposed(p + "self_attn.q_proj.weight", q_dim, h);
  w.k = transposed(p + "self_attn.k_proj.weight", kv_dim, h);
  w.v = transposed(p + "self_attn.v_proj.weight", kv_dim, h);
  w.o = transposed(p + "self_attn.o_proj.weight", h, q_dim);
  if (model_.attention_bias) {
    w.q_bias = file_.read(p + "self_attn.q_proj.bias");
    w.k_bias = file_.read(p + "self_attn.k_proj.bias");
    w.v_bias = file_.read(p + "self_attn.v_proj.bias");
  }
  if (model_.output_bias) w.o_bias = file_.read(p + "self_attn.o_proj.bias");
  if (model_.gated_mlp) {
    w.gate = transposed(p + "mlp.gate_proj.weight", inter, h);
    w.up = transposed(p + "mlp.up_proj.weight", inter, h);
    w.down = transposed(p + "mlp.down_proj.weight", h, inter);
  } else {
    w.up = transposed(p + "mlp.fc1.weight", inter, h);
    w.down = transposed(p + "mlp.fc2.weight", h, inter);
  }
  if (model_.mlp_bias) {
    const auto names = mlp_bias_names(model_);
    if (model_.gated_mlp) w.gate_bias = file_.read(p + names.front().first);
    w.up_bias = file_.read(p + names[names.size() - 2].first);
    w.down_bias = file_.read(p + names.back().first);
  }
  w.input_norm = norm(p + "input_layernorm");
  w.post_norm = norm(p + "post_attention_layernorm");
  return w;
}

void SafetensorsWeights::embedding_rows(std::span<const std::int32_t> ids, float* out) const {
  const std::uint64_t h = model_.hidden;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto row = file_.read_rows("model.embed_tokens.weight", static_cast<std::uint64_t>(ids[i]), 1);
    std::memcpy(out + i * h, row.data(), h * sizeof(float));
  }
}

NormWeights SafetensorsWeights::final_norm() const { return norm("model.norm"); }

kernels::Tensor SafetensorsWeights::lm_head_rows(std::uint64_t first, std::uint64_t count) const {
  const auto rows = file_.read_rows(head_name(), first, count);
  kernels::Tensor t = kernels::Tensor::matrix(static_cast<std::int64_t>(count), static_cast<std::int64_t>(model_.hidden),
                                              kernels::ElemType::kF32);
  std::memcpy(t.data<float>().data(), rows.data(), rows.size() * sizeof(float));
  return t;
}

}  // namespace socsim::functional
