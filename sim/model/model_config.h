#pragma once
// A transformer's dimensions, read from a Hugging Face config.json. Families name their fields
// differently (Llama/Qwen/Gemma/Mistral/InternLM2 vs OPT vs Phi); the loader maps each to one
// description so the graph builder never sees family quirks.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/model/rope_scaling.h"

namespace socsim::model {

enum class Activation { kSilu, kGelu, kGeluTanh, kRelu };
enum class NormKind { kRmsNorm, kLayerNorm };

struct ModelConfig {
  std::string id;            // file stem
  std::string model_type;    // HF model_type
  std::uint64_t hidden = 0;
  std::uint64_t intermediate = 0;
  std::uint64_t layers = 0;
  std::uint64_t heads = 0;
  std::uint64_t kv_heads = 0;
  std::uint64_t head_dim = 0;
  std::uint64_t vocab = 0;
  std::uint64_t max_context = 0;
  bool gated_mlp = true;     // SwiGLU/GeGLU (gate, up, down) vs plain two-matrix MLP
  bool tied_embeddings = false;
  bool attention_bias = false;  // q/k/v projections carry biases
  bool output_bias = false;     // the attention's output projection (o_proj / dense / out_proj) too
  bool mlp_bias = false;        // the MLP's projections (gate/up/down, or fc1/fc2) too
  Activation activation = Activation::kSilu;
  NormKind norm = NormKind::kRmsNorm;
  // Numerics that only functional mode uses (the timing model never reads them).
  double norm_eps = 1e-6;          // rms_norm_eps / layer_norm_eps / layer_norm_epsilon
  double rope_theta = 10000.0;     // rope_theta (HF default 10000)
  double rotary_fraction = 1.0;    // partial_rotary_factor (phi-2: 0.4)
  RopeScaling rope_scaling;        // rope_scaling (Llama 3.2: llama3 x32)
  // sliding_window when the model uses one (Mistral 7B v0.1: 4096), else 0. Not modelled: attention
  // is costed and computed over the whole context, and a run past the window says so.
  std::uint64_t sliding_window = 0;
  // eos_token_id: the ids that end a sequence (one, or a list as Llama-3 Instruct gives; none
  // when the config names none). Functional mode stops a sample whose greedy token is one of them.
  std::vector<std::uint64_t> eos_token_ids;

  // Parameter counts (weights only).
  std::uint64_t params_per_layer() const;
  std::uint64_t embedding_params() const { return vocab * hidden; }
  std::uint64_t lm_head_params() const { return vocab * hidden; }  // shared storage if tied
  std::uint64_t total_params() const;
  // Bytes of weights streamed per forward pass at `bits_per_weight` (e.g. 8 for INT8, 4.5 Q4_0);
  // the embedding table is gathered, not streamed, so it is excluded.
  double streamed_weight_bytes(double bits_per_weight) const;
};

// Loads and checks a config.json. Errors are config::ConfigError naming the file and key.
ModelConfig load_model_config(const std::filesystem::path& file);
// The same from the file's text; `file` names it in errors and gives the model id (its stem).
ModelConfig parse_model_config(const std::string& text, const std::filesystem::path& file);

}  // namespace socsim::model
