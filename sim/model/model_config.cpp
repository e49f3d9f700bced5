#include "sim/model/model_config.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/config/config_error.h"
#include "sim/config/input_file.h"
#include "sim/config/unique_key_json.h"

namespace socsim::model {

using nlohmann::json;

std::uint64_t ModelConfig::params_per_layer() const {
  const std::uint64_t q = hidden * heads * head_dim;
  const std::uint64_t kv = 2 * hidden * kv_heads * head_dim;
  const std::uint64_t o = heads * head_dim * hidden;
  const std::uint64_t mlp = (gated_mlp ? 3 : 2) * hidden * intermediate;
  return q + kv + o + mlp;
}

std::uint64_t ModelConfig::total_params() const {
  return layers * params_per_layer() + embedding_params() + (tied_embeddings ? 0 : lm_head_params());
}

double ModelConfig::streamed_weight_bytes(double bits_per_weight) const {
  const double params = static_cast<double>(layers * params_per_layer() + lm_head_params());
  return params * bits_per_weight / 8.0;
}

namespace {

class Reader {
 public:
  Reader(const json& j, std::string file, std::string prefix = "") : j_(j), file_(std::move(file)), prefix_(std::move(prefix)) {}
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  std::uint64_t positive(const char* key) const {
    if (!has(key)) fail(key, "missing required key");
    const json& v = j_[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) fail(key, "expected a positive integer, got " + v.dump());
    return v.get<std::uint64_t>();
  }
  std::uint64_t positive_or(const char* key, std::uint64_t dflt) const { return has(key) ? positive(key) : dflt; }
  bool boolean_or(const char* key, bool dflt) const {
    if (!has(key)) return dflt;
    if (!j_[key].is_boolean()) fail(key, "expected true or false, got " + j_[key].dump());
    return j_[key].get<bool>();
  }
  std::string string_or(const char* key, std::string dflt) const {
    if (!has(key)) return dflt;
    if (!j_[key].is_string()) fail(key, "expected a string, got " + j_[key].dump());
    return j_[key].get<std::string>();
  }
  double positive_number_or(const char* key, double dflt) const {
    if (!has(key)) return dflt;
    const json& v = j_[key];
    if (!v.is_number() || !(v.get<double>() > 0)) fail(key, "expected a positive number, got " + v.dump());
    return v.get<double>();
  }
  // A token id or a list of them (HF's eos_token_id takes either); empty when absent. Each must
  // be an id of the vocabulary.
  std::vector<std::uint64_t> token_ids(const char* key, std::uint64_t vocab) const {
    std::vector<std::uint64_t> out;
    if (!has(key)) return out;
    const json& v = j_[key];
    const auto one = [&](const json& x) {
      if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::uint64_t>() >= vocab) {
        fail(key, "expected token ids in [0, vocab_size = " + std::to_string(vocab) + "), got " + v.dump());
      }
      out.push_back(x.get<std::uint64_t>());
    };
    if (v.is_array()) {
      for (const json& x : v) one(x);
    } else {
      one(v);
    }
    return out;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw config::ConfigError({file_, 0, 0}, prefix_ + key, msg);
  }

 private:
  const json& j_;
  std::string file_;
  std::string prefix_;  // an object's keys inside the config ("rope_scaling.")
};

RopeScaling parse_rope_scaling(const json& j, const std::string& file) {
  RopeScaling s;
  if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return s;
  const json& o = j["rope_scaling"];
  if (!o.is_object()) Reader(j, file).fail("rope_scaling", "expected an object or null, got " + o.dump());
  const Reader r(o, file, "rope_scaling.");
  // transformers reads rope_type, and type in older configs.
  s.name = r.string_or("rope_type", r.string_or("type", ""));
  if (s.name.empty()) r.fail("rope_type", "missing (linear, llama3, dynamic, yarn, ...)");
  if (s.name == "default") return s;
  if (s.name != "linear" && s.name != "llama3") {
    s.kind = RopeScaling::Kind::kOther;  // kept by name: only functional mode would compute it
    return s;
  }
  s.kind = s.name == "linear" ? RopeScaling::Kind::kLinear : RopeScaling::Kind::kLlama3;
  if (!r.has("factor")) r.fail("factor", "missing required key");
  s.factor = r.positive_number_or("factor", 1.0);
  if (s.kind == RopeScaling::Kind::kLlama3) {
    for (const char* k : {"low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}) {
      if (!r.has(k)) r.fail(k, "missing required key (rope_type llama3)");
    }
    s.low_freq_factor = r.positive_number_or("low_freq_factor", 1.0);
    s.high_freq_factor = r.positive_number_or("high_freq_factor", 4.0);
    s.original_max_positions = static_cast<double>(r.positive("original_max_position_embeddings"));
    if (!(s.high_freq_factor > s.low_freq_factor)) {
      r.fail("high_freq_factor", fmt::format("must exceed low_freq_factor ({}), got {}", s.low_freq_factor, s.high_freq_factor));
    }
  }
  return s;
}

Activation parse_activation(const Reader& r, const std::string& name) {
  if (name == "silu" || name == "swish") return Activation::kSilu;
  if (name == "gelu") return Activation::kGelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::kGeluTanh;
  if (name == "relu") return Activation::kRelu;
  r.fail("hidden_act", "unsupported activation '" + name + "' (supported: silu, gelu, gelu_new, gelu_pytorch_tanh, relu)");
}

int line_of_offset(const std::string& text, std::size_t offset) {
  int line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

}  // namespace

ModelConfig load_model_config(const std::filesystem::path& file) {
  // A config.json holds kilobytes; a huge file (a checkpoint given by mistake) is refused before
  // it is read into memory.
  if (const auto why = config::input_file_problem(file, {"a model's config.json", 16ull << 20, false})) {
    throw config::ConfigError({file.string(), 0, 0}, "", *why + (why->find("MiB") != std::string::npos ? " (the weights go to --weights)" : ""));
  }
  std::ifstream in(file);
  if (!in) throw config::ConfigError({file.string(), 0, 0}, "", "cannot open file" + config::errno_reason());
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_model_config(ss.str(), file);
}

ModelConfig parse_model_config(const std::string& text, const std::filesystem::path& file) {
  json j;
  try {
    j = config::parse_json_unique_keys(text);
  } catch (const config::DuplicateJsonKey& e) {
    throw config::ConfigError({file.string(), e.line(), 0}, e.key(), config::duplicate_key_message(e));
  } catch (const json::parse_error& e) {
    throw config::ConfigError({file.string(), line_of_offset(text, e.byte), 0}, "", "invalid JSON: " + std::string(e.what()));
  } catch (const json::exception& e) {  // e.g. a number beyond double's range (found by fuzz_model_config)
    throw config::ConfigError({file.string(), 0, 0}, "", "invalid JSON: " + std::string(e.what()));
  }
  if (!j.is_object()) throw config::ConfigError({file.string(), 1, 0}, "", "expected a JSON object");
  const Reader r(j, file.string());

  ModelConfig m;
  m.id = file.stem().string();
  m.model_type = r.string_or("model_type", "");
  if (m.model_type.empty()) r.fail("model_type", "missing required key");
  // The families whose block socsim builds (decoder_layer_ops): a pre-norm decoder with a gated or
  // plain MLP. Anything else (state-space, MoE, encoder-decoder...) would be simulated as Llama.
  static constexpr std::string_view kKnown[] = {"llama", "mistral", "qwen2", "internlm2", "phonelm", "gemma", "phi", "opt"};
  if (std::find(std::begin(kKnown), std::end(kKnown), m.model_type) == std::end(kKnown)) {
    std::string known;
    for (auto k : kKnown) known += (known.empty() ? "" : ", ") + std::string(k);
    r.fail("model_type", "'" + m.model_type + "' is not a family socsim models (known: " + known + ")");
  }
  m.hidden = r.positive("hidden_size");
  m.layers = r.positive("num_hidden_layers");
  m.heads = r.positive("num_attention_heads");
  m.vocab = r.positive("vocab_size");
  // Required: every family socsim models publishes it, and a window guessed for a config that
  // lost it would let prompts run that the model cannot take (or refuse ones it can).
  m.max_context = r.positive("max_position_embeddings");
  m.eos_token_ids = r.token_ids("eos_token_id", m.vocab);

  if (m.model_type == "opt") {
    // OPT: plain ReLU MLP of width ffn_dim, LayerNorm, biases everywhere, no GQA.
    m.intermediate = r.positive("ffn_dim");
    m.kv_heads = m.heads;
    m.gated_mlp = false;
    m.attention_bias = r.boolean_or("enable_bias", true);
    m.norm = NormKind::kLayerNorm;
    m.activation = parse_activation(r, r.string_or("activation_function", "relu"));
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", true);
  } else {
    m.intermediate = r.positive("intermediate_size");
    m.kv_heads = r.positive_or("num_key_value_heads", m.heads);
    const bool phi = m.model_type == "phi";
    m.gated_mlp = !phi;
    m.norm = phi ? NormKind::kLayerNorm : NormKind::kRmsNorm;
    m.activation = parse_activation(r, r.string_or("hidden_act", r.string_or("hidden_activation", "silu")));
    // Gemma's published config says "gelu" but the model runs the tanh approximation (HF
    // GemmaConfig maps it to gelu_pytorch_tanh), and GemmaConfig ties embeddings by default.
    const bool gemma = m.model_type == "gemma";
    if (gemma) m.activation = Activation::kGeluTanh;
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", gemma);
    // Qwen2 has q/k/v biases without declaring them; others say attention_bias / bias / qkv_bias.
    m.attention_bias = m.model_type == "qwen2" || phi || r.boolean_or("attention_bias", false) ||
                       r.boolean_or("bias", false) || r.boolean_or("qkv_bias", false);
  }
  m.head_dim = r.positive_or("head_dim", 0);
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0) r.fail("num_attention_heads", "does not divide hidden_size and no head_dim is given");
    m.head_dim = m.hidden / m.heads;
  }
  if (m.heads % m.kv_heads != 0) r.fail("num_key_value_heads", "must divide num_attention_heads");
  // Functional-mode numerics. Families name the norm epsilon differently; the defaults are
  // Hugging Face's (RMSNorm models 1e-6, LayerNorm ones 1e-5).
  const double eps_default = m.norm == NormKind::kLayerNorm ? 1e-5 : 1e-6;
  m.norm_eps = r.positive_number_or("rms_norm_eps",
                                    r.positive_number_or("layer_norm_eps", r.positive_number_or("layer_norm_epsilon", eps_default)));
  for (const char* k : {"rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon"}) {
    // An epsilon beside the mean square of activations of order one: models use 1e-6..1e-5; one
    // near 1 or above flattens every activation to zero and every comparison to a perfect match.
    if (r.has(k) && m.norm_eps > 0.01) r.fail(k, fmt::format("must be in (0, 0.01] (models use 1e-6 to 1e-5), got {}", m.norm_eps));
  }
  m.rope_theta = r.positive_number_or("rope_theta", 10000.0);
  m.rope_scaling = parse_rope_scaling(j, file.string());
  // Mixture-of-experts layers would be simulated as one dense MLP: refused, as other families are.
  for (const char* k : {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"}) {
    if (!r.has(k) || j[k].is_null()) continue;
    if (!j[k].is_number() || j[k].get<double>() < 0 || j[k].get<double>() != std::floor(j[k].get<double>())) {
      r.fail(k, "expected a count of experts (0 or 1: a dense MLP), got " + j[k].dump());
    }
    if (j[k].get<double>() > 1) {
      r.fail(k, "mixture-of-experts layers are not modelled (socsim builds one dense MLP per layer; experts and routing would be "
                "simulated as that), got " + j[k].dump());
    }
  }
  // A sliding attention window (Mistral 7B v0.1: 4096; Qwen2 when use_sliding_window): kept so a
  // run past it can say that attention is costed over the whole context.
  const bool window_used = r.has("use_sliding_window") ? r.boolean_or("use_sliding_window", false) : m.model_type == "mistral";
  if (window_used && r.has("sliding_window")) {
    const std::uint64_t w = r.positive("sliding_window");
    m.sliding_window = w < m.max_context ? w : 0;
  }
  m.rotary_fraction = r.positive_number_or("partial_rotary_factor", 1.0);
  if (m.rotary_fraction > 1.0) r.fail("partial_rotary_factor", "must be in (0, 1]");
  if (m.model_type != "opt") {  // OPT learns its positions; the others rotate pairs of dimensions
    const auto rotary = static_cast<std::uint64_t>(std::floor(static_cast<double>(m.head_dim) * m.rotary_fraction + 1e-9));
    if (rotary % 2 != 0 || rotary == 0) {
      const bool partial = m.rotary_fraction < 1.0;
      r.fail(partial ? "partial_rotary_factor" : (r.has("head_dim") ? "head_dim" : "num_attention_heads"),
             "RoPE rotates pairs of dimensions, but head_dim " + std::to_string(m.head_dim) +
                 (partial ? " x partial_rotary_factor " + fmt::format("{}", m.rotary_fraction) : std::string()) + " gives " +
                 std::to_string(rotary) + " rotary dimensions (it must be even and at least 2)");
    }
  }
  return m;
}

}  // namespace socsim::model
