#include "sim/model/model_config.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/config/config_error.h"
#include "sim/config/edit_distance.h"
#include "sim/config/input_file.h"
#include "sim/config/unique_key_json.h"
#include "sim/config/utf8_text.h"

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

// A published config.json's dimensions are thousands; these bounds are far beyond any model and
// keep the products the simulator forms (parameters per layer, bytes, FLOPs) inside 64 bits: a
// hidden_size of 2^62 wrapped the weight count to 0 and passed every memory check.
constexpr std::uint64_t kMaxWidth = 1 << 20;        // hidden_size, intermediate_size, ffn_dim
constexpr std::uint64_t kMaxCount = 1 << 14;        // layers, heads, head_dim
constexpr std::uint64_t kMaxTokens = 1 << 24;       // vocab_size, max_position_embeddings (as --set model.*)
constexpr double kMaxParams = 1e14;                 // and all of them together
constexpr double kMaxRopeFactor = 1024;             // rope_scaling.factor


class Reader {
 public:
  // `text`: the file's text, for the lines of errors; `asked`: every key read, present or not (the
  // near-miss check after reading).
  Reader(const json& j, std::string file, const std::string& text, std::set<std::string>* asked, std::string prefix = "")
      : j_(j), file_(std::move(file)), text_(text), asked_(asked), prefix_(std::move(prefix)) {}
  bool has(const char* key) const {
    if (asked_ != nullptr) asked_->insert(key);
    return j_.contains(key) && !j_[key].is_null();
  }
  std::uint64_t positive(const char* key, std::uint64_t max) const {
    // A null is present (Hugging Face writes null for "the default"): a required key has none.
    if (!has(key)) fail(key, j_.contains(key) ? "is null; a required key needs a positive integer" : "missing required key");
    const json& v = j_[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) fail(key, "expected a positive integer, got " + v.dump());
    if (v.get<std::uint64_t>() > max) {
      fail(key, fmt::format("expected at most {} (far beyond any published model; larger values overflow the simulator's "
                            "parameter and byte counts), got {}",
                            max, v.dump()));
    }
    return v.get<std::uint64_t>();
  }
  std::uint64_t positive_or(const char* key, std::uint64_t dflt, std::uint64_t max) const { return has(key) ? positive(key, max) : dflt; }
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
  // At the key's line (its object's when the key is missing; the file's when neither is found).
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    const std::string object = prefix_.empty() ? std::string() : prefix_.substr(0, prefix_.size() - 1);
    const std::size_t from = object.empty() ? 0 : text_.find("\"" + object + "\"");
    int line = from == std::string::npos ? 0 : config::json_key_line(text_, key, 1, from);
    if (line == 0 && !object.empty()) line = config::json_key_line(text_, object);
    throw config::ConfigError({file_, line, 0}, prefix_ + key, msg);
  }
  const json& object() const { return j_; }

 private:
  const json& j_;
  std::string file_;
  const std::string& text_;
  std::set<std::string>* asked_;
  std::string prefix_;  // an object's keys inside the config ("rope_scaling.")
};

// A key one or two typos from a key socsim reads and the file does not give
// ("num_key_value_head") would leave that setting at its default (multi-head attention, a 7x
// larger KV cache) without a word: refused. Hugging Face's own near neighbours pass.
void refuse_near_misses(const Reader& r, const json& j, const std::set<std::string>& asked) {
  static const std::set<std::string> kHfKeys = {"bos_token_id", "pad_token_id", "sep_token_id", "unk_token_id", "cls_token_id"};
  for (const auto& [key, value] : j.items()) {
    if (asked.count(key) != 0 || kHfKeys.count(key) != 0) continue;
    for (const std::string& wanted : asked) {
      // The distance is at least the lengths' difference: a long key (megabytes of it) is never
      // compared (edit_distance's table is length x length).
      if (key.size() > wanted.size() + 2 || wanted.size() > key.size() + 2) continue;
      const std::size_t distance = config::detail::edit_distance(key, wanted);
      if (distance > 2 || distance >= wanted.size()) continue;
      // Beside the key itself ("num_hiden_layers": 3 under "num_hidden_layers": 24) a value meant
      // would be ignored as surely; the same value twice changes nothing.
      if (j.contains(wanted) && !j[wanted].is_null()) {
        if (value == j[wanted]) continue;
        r.fail(key, "unknown key, a typo of '" + wanted + "'? The file also gives " + wanted + " (" + j[wanted].dump() +
                        "), which socsim reads; this value (" + value.dump() + ") would be ignored: remove one of them");
      }
      r.fail(key, "unknown key; did you mean '" + wanted + "'? (without it socsim would use " + wanted + "'s default)");
    }
  }
}

RopeScaling parse_rope_scaling(const Reader& top, const std::string& file, const std::string& text) {
  RopeScaling s;
  const json& j = top.object();
  if (!top.has("rope_scaling")) return s;
  const json& o = j["rope_scaling"];
  if (!o.is_object()) top.fail("rope_scaling", "expected an object or null, got " + o.dump());
  const Reader r(o, file, text, nullptr, "rope_scaling.");
  // transformers reads rope_type, and type in older configs.
  s.name = r.string_or("rope_type", r.string_or("type", ""));
  if (r.has("rope_type") && r.has("type") && r.string_or("type", "") != s.name) {
    r.fail("type", "is '" + r.string_or("type", "") + "', but rope_type says '" + s.name + "': give the scaling's type once");
  }
  if (s.name.empty()) r.fail("rope_type", "missing (linear, llama3, dynamic, yarn, ...)");
  if (s.name == "default") return s;
  if (s.name != "linear" && s.name != "llama3") {
    s.kind = RopeScaling::Kind::kOther;  // kept by name: only a forward pass would compute it, and refuses it there
    const char* key = r.has("rope_type") ? "rope_type" : "type";
    s.key = std::string("rope_scaling.") + key;
    s.file = file;
    const std::size_t from = text.find("\"rope_scaling\"");
    s.line = from == std::string::npos ? 0 : config::json_key_line(text, key, 1, from);
    // Every type scales by a factor: a non-positive one is wrong whether or not it is computed.
    if (r.has("factor")) s.factor = r.positive_number_or("factor", 1.0);
    if (s.factor < 1.0) r.fail("factor", fmt::format("must be at least 1 (a scaling stretches the window), got {}", s.factor));
    return s;
  }
  s.kind = s.name == "linear" ? RopeScaling::Kind::kLinear : RopeScaling::Kind::kLlama3;
  // The keys of the two scalings socsim computes; another key would be ignored.
  for (const auto& [key, value] : o.items()) {
    const bool known = key == "rope_type" || key == "type" || key == "factor" ||
                       (s.kind == RopeScaling::Kind::kLlama3 &&
                        (key == "low_freq_factor" || key == "high_freq_factor" || key == "original_max_position_embeddings"));
    if (!known) {
      r.fail(key, "unknown key for rope_type " + s.name + " (it takes factor" +
                      std::string(s.kind == RopeScaling::Kind::kLlama3 ? ", low_freq_factor, high_freq_factor, original_max_position_embeddings" : "") +
                      ")");
    }
  }
  if (!r.has("factor")) r.fail("factor", "missing required key");
  s.factor = r.positive_number_or("factor", 1.0);
  // Published models stretch their window 2 to 64 times; 1e300 divided every frequency away.
  if (s.factor > kMaxRopeFactor) r.fail("factor", fmt::format("must be at most {} (published models scale by 2 to 64), got {}", kMaxRopeFactor, s.factor));
  // A factor stretches the window; below 1 it would shrink it (Hugging Face warns below 1): 1e-300
  // multiplied every position by 1e300.
  if (s.factor < 1.0) r.fail("factor", fmt::format("must be at least 1 (it divides the positions to stretch the window), got {}", s.factor));
  if (s.kind == RopeScaling::Kind::kLlama3) {
    for (const char* k : {"low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}) {
      if (!r.has(k)) r.fail(k, "missing required key (rope_type llama3)");
    }
    s.low_freq_factor = r.positive_number_or("low_freq_factor", 1.0);
    s.high_freq_factor = r.positive_number_or("high_freq_factor", 4.0);
    s.original_max_positions = static_cast<double>(r.positive("original_max_position_embeddings", kMaxTokens));
    if (!(s.high_freq_factor > s.low_freq_factor)) {
      r.fail("high_freq_factor", fmt::format("must exceed low_freq_factor ({}), got {}", s.low_freq_factor, s.high_freq_factor));
    }
  }
  return s;
}

// Keys that change the model in ways socsim does not build: refused rather than ignored.
void refuse_unmodelled(const Reader& r, const json& j, const std::string& model_type, const std::string_view* known_begin,
                       const std::string_view* known_end) {
  if (r.has("text_config")) {
    r.fail("text_config", "a nested text model's configuration (a multimodal wrapper's) is not read: give the text model's own "
                          "config.json, its keys at the top level");
  }
  if (r.has("quantization_config")) {
    r.fail("quantization_config", "a pre-quantized checkpoint's format is not read: socsim quantizes the weights as each system's "
                                  "plan says (W8A8, W4A16, FP16, ...); give the unquantized model's config.json");
  }
  if (r.has("torch_dtype")) {
    static const std::set<std::string> kFloat = {"float32", "float16", "bfloat16", "float64", "float", "half", "double"};
    if (!j["torch_dtype"].is_string() || kFloat.count(j["torch_dtype"].get<std::string>()) == 0) {
      r.fail("torch_dtype", "expected the checkpoint's floating-point type, such as float32, float16 or bfloat16, got " + j["torch_dtype"].dump());
    }
  }
  // "LlamaForCausalLM" names the llama family: a file saying another model_type contradicts itself,
  // and which block to build is not for socsim to guess.
  if (r.has("architectures")) {
    const json& a = j["architectures"];
    if (!a.is_array() || a.empty() || !a[0].is_string()) r.fail("architectures", "expected a list of class names, got " + a.dump());
    const std::string name = a[0].get<std::string>();
    std::string family = name.substr(0, name.find("For"));
    std::transform(family.begin(), family.end(), family.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (family != model_type && std::find(known_begin, known_end, family) != known_end) {
      r.fail("architectures", "'" + name + "' is a " + family + " model, but model_type says " + model_type + "; give one family");
    }
  }
}

Activation parse_activation(const Reader& r, const char* key, const std::string& name) {
  if (name == "silu" || name == "swish") return Activation::kSilu;
  if (name == "gelu") return Activation::kGelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::kGeluTanh;
  if (name == "relu") return Activation::kRelu;
  r.fail(key, "unsupported activation '" + name + "' (supported: silu, gelu, gelu_new, gelu_pytorch_tanh, relu)");
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
  // JSON is UTF-8 (a UTF-8 byte order mark is fine); nlohmann's message for UTF-16 text echoed the raw byte.
  const std::string_view body = std::string_view(text).substr(text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0);
  if (const auto bad = config::detail::first_non_utf8(body)) {
    const std::size_t at = *bad + (text.size() - body.size());
    throw config::ConfigError({file.string(), config::text_line_of_offset(text, at), 0}, "",
                              fmt::format("byte 0x{:02x} is not UTF-8 text (a config.json is UTF-8 JSON)", static_cast<unsigned char>(text[at])));
  }
  json j;
  try {
    j = config::parse_json_unique_keys(text);
  } catch (const config::DuplicateJsonKey& e) {
    throw config::ConfigError({file.string(), e.line(), 0}, e.key(), config::duplicate_key_message(e));
  } catch (const json::parse_error& e) {
    throw config::ConfigError({file.string(), config::text_line_of_offset(text, e.byte), 0}, "", "invalid JSON: " + std::string(e.what()));
  } catch (const json::exception& e) {  // e.g. a number beyond double's range (found by fuzz_model_config)
    throw config::ConfigError({file.string(), 0, 0}, "", "invalid JSON: " + std::string(e.what()));
  }
  if (!j.is_object()) throw config::ConfigError({file.string(), 1, 0}, "", "expected a JSON object");
  std::set<std::string> asked;
  const Reader r(j, file.string(), text, &asked);

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
  refuse_unmodelled(r, j, m.model_type, std::begin(kKnown), std::end(kKnown));
  m.hidden = r.positive("hidden_size", kMaxWidth);
  m.layers = r.positive("num_hidden_layers", kMaxCount);
  m.heads = r.positive("num_attention_heads", kMaxCount);
  m.vocab = r.positive("vocab_size", kMaxTokens);
  // Required: every family socsim models publishes it, and a window guessed for a config that
  // lost it would let prompts run that the model cannot take (or refuse ones it can).
  m.max_context = r.positive("max_position_embeddings", kMaxTokens);
  m.eos_token_ids = r.token_ids("eos_token_id", m.vocab);

  if (m.model_type == "opt") {
    // OPT: plain ReLU MLP of width ffn_dim, LayerNorm, biases everywhere, no GQA.
    m.intermediate = r.positive("ffn_dim", kMaxWidth);
    m.kv_heads = m.heads;
    m.gated_mlp = false;
    m.attention_bias = r.boolean_or("enable_bias", true);
    m.output_bias = m.mlp_bias = m.attention_bias;  // HF OPT: every Linear has bias=enable_bias
    m.norm = NormKind::kLayerNorm;
    m.activation = parse_activation(r, "activation_function", r.string_or("activation_function", "relu"));
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", true);
  } else {
    m.intermediate = r.positive("intermediate_size", kMaxWidth);
    m.kv_heads = r.positive_or("num_key_value_heads", m.heads, kMaxCount);
    const bool phi = m.model_type == "phi";
    m.gated_mlp = !phi;
    m.norm = phi ? NormKind::kLayerNorm : NormKind::kRmsNorm;
    const char* act_key = r.has("hidden_act") || !r.has("hidden_activation") ? "hidden_act" : "hidden_activation";
    m.activation = parse_activation(r, act_key, r.string_or("hidden_act", r.string_or("hidden_activation", "silu")));
    // Gemma's published config says "gelu" but the model runs the tanh approximation (HF
    // GemmaConfig maps it to gelu_pytorch_tanh), and GemmaConfig ties embeddings by default.
    const bool gemma = m.model_type == "gemma";
    if (gemma) m.activation = Activation::kGeluTanh;
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", gemma);
    // Biases as each family's Hugging Face modules build them: Qwen2 has q/k/v biases without
    // declaring them (o_proj and the MLP never have one); Llama, Gemma and PhoneLM put
    // attention_bias on q/k/v and o_proj, and Llama mlp_bias on gate/up/down; InternLM2's bias is
    // on wqkv and wo; Phi has biases on every projection, undeclared; Mistral hard-codes none, so
    // these keys change nothing there (as in Hugging Face). qkv_bias: q/k/v only. Every key is
    // read (and type-checked) whatever the family.
    const bool attention = r.boolean_or("attention_bias", false), bias = r.boolean_or("bias", false), qkv = r.boolean_or("qkv_bias", false);
    const bool mlp = r.boolean_or("mlp_bias", false);
    const std::string& t = m.model_type;
    const bool declares_attention = t == "llama" || t == "gemma" || t == "phonelm";
    const bool declares_bias = t == "internlm2";
    const bool mistral = t == "mistral";
    m.attention_bias = t == "qwen2" || phi || (declares_attention && attention) || (declares_bias && bias) || (!mistral && qkv);
    m.output_bias = phi || (declares_attention && attention) || (declares_bias && bias);
    m.mlp_bias = phi || (t == "llama" && mlp);
  }
  m.head_dim = r.positive_or("head_dim", 0, kMaxCount);
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0) r.fail("num_attention_heads", "does not divide hidden_size and no head_dim is given");
    m.head_dim = m.hidden / m.heads;
    // Derived, under the same bound as a given one (hidden 2^20 over one head).
    if (m.head_dim > kMaxCount) {
      r.fail("num_attention_heads", fmt::format("hidden_size / num_attention_heads gives heads of {} dimensions, more than {} "
                                                "(far beyond any published model)",
                                                m.head_dim, kMaxCount));
    }
  }
  if (m.heads % m.kv_heads != 0) r.fail("num_key_value_heads", "must divide num_attention_heads");
  // Each dimension within its bound, their product may still pass 64 bits (2^20 wide x 2^14 heads
  // of 2^14 dimensions x 2^14 layers): counted in floating point first.
  {
    const double h = static_cast<double>(m.hidden), attn = static_cast<double>(m.heads + m.kv_heads) * static_cast<double>(m.head_dim);
    const double per_layer = 2 * h * attn + 3 * h * static_cast<double>(m.intermediate);
    const double params = static_cast<double>(m.layers) * per_layer + 2 * h * static_cast<double>(m.vocab);
    if (params > kMaxParams) {
      r.fail("hidden_size", fmt::format("with {} layers, {} heads of {} dimensions, intermediate size {} and a vocabulary of {}, "
                                        "the model has about {:.3g} parameters, more than the {:.0e} socsim counts (the largest "
                                        "published models have about 2e12)",
                                        m.layers, m.heads, m.head_dim, m.intermediate, m.vocab, params, kMaxParams));
    }
  }
  // Functional-mode numerics. Families name the norm epsilon differently; the defaults are
  // Hugging Face's (RMSNorm models 1e-6, LayerNorm ones 1e-5).
  const double eps_default = m.norm == NormKind::kLayerNorm ? 1e-5 : 1e-6;
  m.norm_eps = r.positive_number_or("rms_norm_eps",
                                    r.positive_number_or("layer_norm_eps", r.positive_number_or("layer_norm_epsilon", eps_default)));
  const char* eps_given = nullptr;
  for (const char* k : {"rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon"}) {
    if (!r.has(k)) continue;
    // An epsilon beside the mean square of activations of order one: models use 1e-6..1e-5; one
    // near 1 or above flattens every activation to zero and every comparison to a perfect match.
    const double eps = r.positive_number_or(k, eps_default);
    if (eps > 0.01) r.fail(k, fmt::format("must be in (0, 0.01] (models use 1e-6 to 1e-5), got {}", eps));
    // Two names with two values: which one the model was trained with is not for socsim to guess.
    if (eps_given != nullptr && eps != m.norm_eps) {
      r.fail(k, fmt::format("is {}, but {} says {}: give the norm epsilon once", eps, eps_given, m.norm_eps));
    }
    if (eps_given == nullptr) eps_given = k;
  }
  m.rope_theta = r.positive_number_or("rope_theta", 10000.0);
  // The base of RoPE's geometric frequencies, theta^(-2i/d): at 1 or below every pair turns at
  // least once per position, no encoding of distance (published bases: 1e4 to 1e6; 5e-324 ran).
  if (!(m.rope_theta > 1.0)) r.fail("rope_theta", fmt::format("must be above 1 (published models use 10000 to 1000000), got {}", m.rope_theta));
  m.rope_scaling = parse_rope_scaling(r, file.string(), text);
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
  // Block structures socsim does not build would be simulated as its pre-LN block: refused, as
  // experts are (OPT-350m projects its embeddings and normalizes after each block; phi's
  // qk_layernorm normalizes the queries and keys).
  if (r.has("word_embed_proj_dim") && !j["word_embed_proj_dim"].is_null() && j["word_embed_proj_dim"] != j.value("hidden_size", json())) {
    r.fail("word_embed_proj_dim", "embeddings projected to and from another width (" + j["word_embed_proj_dim"].dump() + " against hidden_size " +
                                      j.value("hidden_size", json()).dump() + ", as OPT-350m) are not modelled");
  }
  if (r.has("do_layer_norm_before") && !r.boolean_or("do_layer_norm_before", true)) {
    r.fail("do_layer_norm_before", "post-LN blocks (the norm after each block's residual add, as OPT-350m) are not modelled: socsim builds pre-LN blocks");
  }
  if (r.has("qk_layernorm") && r.boolean_or("qk_layernorm", false)) {
    r.fail("qk_layernorm", "layer norms over the queries and keys are not modelled (socsim's attention takes them as projected)");
  }
  // A sliding attention window (Mistral 7B v0.1: 4096; Qwen2 when use_sliding_window): kept so a
  // run past it can say that attention is costed over the whole context.
  const bool window_used = r.has("use_sliding_window") ? r.boolean_or("use_sliding_window", false) : m.model_type == "mistral";
  if (window_used && r.has("sliding_window")) {
    const std::uint64_t w = r.positive("sliding_window", std::numeric_limits<std::int64_t>::max());
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
  refuse_near_misses(r, j, asked);
  return m;
}

}  // namespace socsim::model
