// Hostile or mistaken values in a model's config.json (a hostile-input audit): dimensions whose
// products wrap 64 bits, misspelt keys that would leave a default in place, two values for one
// setting, rope_scaling keys nobody reads; every error at its key's line.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/config/config_error.h"
#include "sim/model/model_config.h"

namespace socsim::model {
namespace {

// One key per line: line 1 is "{", the keys from line 2 on, `extra` after them.
std::string config_text(const std::string& hidden = "64", const std::string& extra = "") {
  return "{\n"
         "  \"model_type\": \"qwen2\",\n"           // 2
         "  \"hidden_size\": " + hidden + ",\n"     // 3
         "  \"intermediate_size\": 128,\n"          // 4
         "  \"num_hidden_layers\": 2,\n"            // 5
         "  \"num_attention_heads\": 4,\n"          // 6
         "  \"vocab_size\": 100,\n"                 // 7
         "  \"max_position_embeddings\": 2048" +    // 8
         extra + "\n}\n";
}

std::string error_of(const std::string& text) {
  try {
    parse_model_config(text, "m.json");
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

// A hidden size of 2^62 wrapped the weight count to 0 bytes: every memory check passed and the
// NPU lowering took 14.7 GB past --max-host-memory.
TEST(ModelConfigBounds, DimensionsPastAnyModelAreRefusedAtTheirLine) {
  EXPECT_EQ(error_of(config_text("4611686018427387904")),
            "m.json:3: hidden_size: expected at most 1048576 (far beyond any published model; larger values overflow the "
            "simulator's parameter and byte counts), got 4611686018427387904");
  EXPECT_NE(error_of(config_text("64", ",\n  \"head_dim\": 65536")).find("m.json:9: head_dim: expected at most 16384"), std::string::npos);
  // Each within its bound, all together past 10^14 parameters.
  const std::string wide = "{\"model_type\": \"qwen2\", \"hidden_size\": 1048576, \"intermediate_size\": 1048576, \"num_hidden_layers\": 16384, "
                           "\"num_attention_heads\": 16384, \"head_dim\": 16384, \"vocab_size\": 100, \"max_position_embeddings\": 2048}";
  EXPECT_NE(error_of(wide).find("hidden_size: with 16384 layers, 16384 heads of 16384 dimensions"), std::string::npos) << error_of(wide);
  EXPECT_EQ(error_of(config_text()), "(accepted)");
  // A derived head_dim under the same bound (hidden 2^20 over one head).
  const std::string one_head = "{\"model_type\": \"qwen2\", \"hidden_size\": 1048576, \"intermediate_size\": 4, \"num_hidden_layers\": 1, "
                               "\"num_attention_heads\": 1, \"vocab_size\": 100, \"max_position_embeddings\": 2048}";
  EXPECT_NE(error_of(one_head).find("num_attention_heads: hidden_size / num_attention_heads gives heads of 1048576 dimensions"), std::string::npos)
      << error_of(one_head);
  // A key of megabytes is not compared character by character with every known key.
  EXPECT_EQ(error_of(config_text("64", ",\n  \"" + std::string(1 << 20, 'k') + "\": 1")), "(accepted)");
}

// The activation's error names the key the file gave (hidden_activation, OPT's activation_function).
TEST(ModelConfigBounds, AnActivationErrorNamesTheKeyGiven) {
  EXPECT_EQ(error_of(config_text("64", ",\n  \"hidden_activation\": \"swiglu9\"")),
            "m.json:9: hidden_activation: unsupported activation 'swiglu9' (supported: silu, gelu, gelu_new, gelu_pytorch_tanh, relu)");
  EXPECT_NE(error_of(config_text("64", ",\n  \"hidden_act\": \"swiglu9\"")).find("m.json:9: hidden_act: unsupported"), std::string::npos);
}

TEST(ModelConfigBounds, ValueErrorsNameTheirLine) {
  EXPECT_EQ(error_of(config_text("\"64\"")), "m.json:3: hidden_size: expected a positive integer, got \"64\"");
  EXPECT_NE(error_of(config_text("64", ",\n  \"rope_scaling\": {\n    \"type\": \"linear\"\n  }")).find("m.json:9: rope_scaling.factor: missing"),
            std::string::npos);
}

// "num_key_value_head" for "num_key_value_heads" ran as multi-head attention (a 7x larger KV
// cache); "rope_thetta" at 10000. Hugging Face's bos_token_id (one letter from eos_token_id) passes.
TEST(ModelConfigBounds, AKeyOneTypoFromAKnownOneIsRefused) {
  EXPECT_EQ(error_of(config_text("64", ",\n  \"num_key_value_head\": 2")),
            "m.json:9: num_key_value_head: unknown key; did you mean 'num_key_value_heads'? (without it socsim would use "
            "num_key_value_heads's default)");
  EXPECT_NE(error_of(config_text("64", ",\n  \"rope_thetta\": 5e5")).find("did you mean 'rope_theta'"), std::string::npos);
  EXPECT_EQ(error_of(config_text("64", ",\n  \"bos_token_id\": 1, \"torch_dtype\": \"bfloat16\", \"use_cache\": true")), "(accepted)");
  // Beside the key it misspells, with another value, the typo would be ignored as surely (a probe
  // ran "num_hiden_layers": 3 as 2 layers); with the same value it changes nothing.
  EXPECT_EQ(error_of(config_text("64", ",\n  \"num_hiden_layers\": 3")),
            "m.json:9: num_hiden_layers: unknown key, a typo of 'num_hidden_layers'? The file also gives num_hidden_layers (2), which "
            "socsim reads; this value (3) would be ignored: remove one of them");
  EXPECT_EQ(error_of(config_text("64", ",\n  \"rope_theta\": 5e5, \"rope_thetas\": 5e5")), "(accepted)");
}

// Keys that change the model in ways socsim does not build are refused, not ignored (a probe ran a
// GPTQ config and a multimodal wrapper as plain models).
TEST(ModelConfigBounds, WhatSocsimDoesNotBuildIsRefusedAtItsKey) {
  EXPECT_EQ(error_of(config_text("64", ",\n  \"mlp_bias\": \"yes\"")), "m.json:9: mlp_bias: expected true or false, got \"yes\"");
  EXPECT_NE(error_of(config_text("64", ",\n  \"quantization_config\": {\"bits\": 3}")).find("m.json:9: quantization_config: a pre-quantized"),
            std::string::npos);
  EXPECT_NE(error_of(config_text("64", ",\n  \"text_config\": {\"hidden_size\": 4096}")).find("m.json:9: text_config: a nested text model"),
            std::string::npos);
  EXPECT_EQ(error_of(config_text("64", ",\n  \"torch_dtype\": \"int3\"")),
            "m.json:9: torch_dtype: expected the checkpoint's floating-point type, such as float32, float16 or bfloat16, got \"int3\"");
  EXPECT_EQ(error_of(config_text("64", ",\n  \"architectures\": [\"LlamaForCausalLM\"]")),
            "m.json:9: architectures: 'LlamaForCausalLM' is a llama model, but model_type says qwen2; give one family");
  EXPECT_EQ(error_of(config_text("64", ",\n  \"architectures\": [\"Qwen2ForPrmModel\"], \"torch_dtype\": \"float16\"")), "(accepted)");
  EXPECT_EQ(error_of(config_text("64", ",\n  \"architectures\": [\"SomethingElse\"]")), "(accepted)");
  // Read, and so type-checked, in every family (qwen2 has its q/k/v biases whatever it says).
  EXPECT_EQ(error_of(config_text("64", ",\n  \"attention_bias\": \"maybe\"")), "m.json:9: attention_bias: expected true or false, got \"maybe\"");
  EXPECT_EQ(error_of(config_text("64", ",\n  \"rope_scaling\": {\"type\": \"linear\", \"factor\": 1e300}")),
            "m.json:9: rope_scaling.factor: must be at most 1024 (published models scale by 2 to 64), got 1e+300");
}

TEST(ModelConfigBounds, OneSettingGivenTwiceWithTwoValuesIsRefused) {
  EXPECT_NE(error_of(config_text("64", ",\n  \"rms_norm_eps\": 1e-6,\n  \"layer_norm_eps\": 0.5")).find("m.json:10: layer_norm_eps: must be in (0, 0.01]"),
            std::string::npos);
  EXPECT_NE(error_of(config_text("64", ",\n  \"rms_norm_eps\": 1e-6,\n  \"layer_norm_eps\": 1e-5"))
                .find("layer_norm_eps: is 1e-05, but rms_norm_eps says 1e-06: give the norm epsilon once"),
            std::string::npos);
  EXPECT_EQ(error_of(config_text("64", ",\n  \"rms_norm_eps\": 1e-6,\n  \"layer_norm_eps\": 1e-6")), "(accepted)");
  EXPECT_NE(error_of(config_text("64", ",\n  \"rope_scaling\": {\"type\": \"linear\", \"rope_type\": \"llama3\", \"factor\": 2}"))
                .find("rope_scaling.type: is 'linear', but rope_type says 'llama3'"),
            std::string::npos);
  EXPECT_NE(error_of(config_text("64", ",\n  \"rope_scaling\": {\"type\": \"linear\", \"factor\": 2, \"bogus\": 1}"))
                .find("rope_scaling.bogus: unknown key for rope_type linear (it takes factor)"),
            std::string::npos);
}

// UTF-16 text: nlohmann's message echoed the raw 0xFF byte; a UTF-8 byte order mark is fine.
TEST(ModelConfigBounds, TextThatIsNotUtf8IsNamedByItsByte) {
  EXPECT_EQ(error_of(std::string("\xFF\xFE{\0}\0", 6)), "m.json:1: byte 0xff is not UTF-8 text (a config.json is UTF-8 JSON)");
  EXPECT_EQ(error_of(config_text("64", ",\n  \"x\": \"\xC3\"")), "m.json:9: byte 0xc3 is not UTF-8 text (a config.json is UTF-8 JSON)");
  EXPECT_EQ(error_of("\xEF\xBB\xBF" + config_text()), "(accepted)");
}

// Which projections carry biases, per family (Hugging Face's modules): a probe found a llama with
// mlp_bias: true run as one without, and OPT's and Phi's output and MLP biases left out.
TEST(ModelConfigBounds, BiasesFollowEachFamilysProjections) {
  const auto biases = [](const std::string& type, const std::string& extra) {
    std::string text = config_text("64", extra);
    text.replace(text.find("qwen2"), 5, type);
    if (type == "opt") text.replace(text.find("intermediate_size"), 17, "ffn_dim");
    const auto m = parse_model_config(text, "m.json");
    return std::string(m.attention_bias ? "qkv" : "-") + (m.output_bias ? " o" : " -") + (m.mlp_bias ? " mlp" : " -");
  };
  EXPECT_EQ(biases("qwen2", ""), "qkv - -");  // q/k/v biases, undeclared; no o_proj bias
  EXPECT_EQ(biases("llama", ""), "- - -");
  EXPECT_EQ(biases("llama", ",\n  \"attention_bias\": true"), "qkv o -");
  EXPECT_EQ(biases("llama", ",\n  \"mlp_bias\": true"), "- - mlp");
  EXPECT_EQ(biases("llama", ",\n  \"qkv_bias\": true"), "qkv - -");
  EXPECT_EQ(biases("internlm2", ",\n  \"bias\": true"), "qkv o -");  // wqkv and wo
  EXPECT_EQ(biases("gemma", ",\n  \"attention_bias\": true, \"mlp_bias\": true"), "qkv o -");  // GemmaMLP has none
  EXPECT_EQ(biases("qwen2", ",\n  \"attention_bias\": true, \"mlp_bias\": true"), "qkv - -");  // hard-coded in Qwen2
  EXPECT_EQ(biases("mistral", ",\n  \"attention_bias\": true, \"mlp_bias\": true"), "- - -");  // hard-coded bias=False
  EXPECT_EQ(biases("llama", ",\n  \"bias\": true"), "- - -");  // InternLM's key, not Llama's
  EXPECT_EQ(biases("phi", ""), "qkv o mlp");
  EXPECT_EQ(biases("opt", ""), "qkv o mlp");
  EXPECT_EQ(biases("opt", ",\n  \"enable_bias\": false"), "- - -");
  const auto phi2 = load_model_config(std::string(SOCSIM_SOURCE_DIR) + "/models/phi-2.json");
  EXPECT_TRUE(phi2.attention_bias && phi2.output_bias && phi2.mlp_bias);
}

// Every shipped model still loads.
TEST(ModelConfigBounds, ShippedModelsLoad) {
  for (const auto& e : std::filesystem::directory_iterator(std::string(SOCSIM_SOURCE_DIR) + "/models")) {
    if (e.path().extension() == ".json") {
      EXPECT_NO_THROW(load_model_config(e.path())) << e.path();
    }
  }
}

}  // namespace
}  // namespace socsim::model
