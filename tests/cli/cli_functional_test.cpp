// `socsim run --mode functional`: the accuracy object, determinism, timing equal to the timing
// run's, --weights with a safetensors file, and bad input (exit 2, nothing written).
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

// A tiny Qwen2-style model (q/k/v bias, tied embeddings) so a functional run takes milliseconds.
std::filesystem::path tiny_model(const std::filesystem::path& dir) {
  const auto p = dir / "tiny-qwen.json";
  std::ofstream(p) << R"({"model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "max_position_embeddings": 512,
    "tie_word_embeddings": true, "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "hidden_act": "silu"})";
  return p;
}

std::string run_args(const std::filesystem::path& model, const std::string& system = "npu-naive") {
  return "run --soc snapdragon-8gen3 --model '" + model.string() + "' --system " + system + " --prompt 24 --decode 3";
}

TEST(CliFunctional, ReportsAccuracyAndKeepsTheTimingRunsNumbers) {
  const auto dir = scratch_dir("functional_ok");
  const auto model = tiny_model(dir);
  auto r = run_socsim(run_args(model) + " --mode functional --seed 4 --json '" + (dir / "f.json").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("accuracy vs FP32 reference (2 of 2 layers, weights synthetic:seed=4, 4 outlier channels x30)"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("top-1 agreement"), std::string::npos) << r.out;
  auto f = nlohmann::json::parse(read_file(dir / "f.json"));
  ASSERT_TRUE(f.contains("accuracy"));
  const auto& a = f["accuracy"];
  for (const char* k : {"hidden_rel_error", "logits_rel_error", "logits_max_abs_error", "top1_agreement", "positions",
                        "functional_layers", "layers", "weights", "outlier_channels"}) {
    EXPECT_TRUE(a.contains(k)) << k;
  }
  EXPECT_EQ(a["positions"], 4);  // last prompt token + 3 decode steps
  EXPECT_EQ(a["layers"], 2);
  EXPECT_GT(a["logits_rel_error"].get<double>(), 0.0);
  EXPECT_LT(a["logits_rel_error"].get<double>(), 0.5);
  EXPECT_EQ(f["mode"], "functional");

  // Same inputs, same bytes; and the numerics do not change the simulated time.
  ASSERT_EQ(run_socsim(run_args(model) + " --mode functional --seed 4 --json '" + (dir / "g.json").string() + "'").exit_code, 0);
  EXPECT_EQ(read_file(dir / "f.json"), read_file(dir / "g.json"));
  ASSERT_EQ(run_socsim(run_args(model) + " --seed 4 --json '" + (dir / "t.json").string() + "'").exit_code, 0);
  auto t = nlohmann::json::parse(read_file(dir / "t.json"));
  // npu-naive has no data-driven quantity: the report says so, and the timing is timing mode's.
  EXPECT_EQ(f["data_driven"]["quantities"], "none");
  f.erase("accuracy");
  f.erase("data_driven");
  f.erase("mode");
  t.erase("mode");
  EXPECT_EQ(f, t);
}

TEST(CliFunctional, OptionsShapeTheRun) {
  const auto dir = scratch_dir("functional_opts");
  const auto model = tiny_model(dir);
  auto r = run_socsim(run_args(model, "npu-only") + " --mode functional --functional-layers 1 --set functional.outlier_channels=0 "
                      "--set functional.outlier_scale=10 --json '" + (dir / "r.json").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto a = nlohmann::json::parse(read_file(dir / "r.json"))["accuracy"];
  EXPECT_EQ(a["functional_layers"], 1);
  EXPECT_EQ(a["outlier_channels"], 0);
  EXPECT_EQ(a["outlier_scale"], 10.0);
  EXPECT_EQ(a["attention"]["npu/w4a16"], "fp16-flash-lut");
}

// A checkpoint in safetensors format with the Hugging Face names of the tiny model.
void write_checkpoint(const std::filesystem::path& file, bool drop_one) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> tensors{{"model.embed_tokens.weight", {100, 64}},
                                                                        {"model.norm.weight", {64}}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    for (const char* n : {"q", "k", "v", "o"}) {
      const std::int64_t out = (n[0] == 'k' || n[0] == 'v') ? 32 : 64;
      tensors.push_back({p + "self_attn." + n + "_proj.weight", {out, 64}});
      if (n[0] != 'o') tensors.push_back({p + "self_attn." + n + "_proj.bias", {out}});
    }
    tensors.push_back({p + "mlp.gate_proj.weight", {128, 64}});
    tensors.push_back({p + "mlp.up_proj.weight", {128, 64}});
    tensors.push_back({p + "mlp.down_proj.weight", {64, 128}});
    tensors.push_back({p + "input_layernorm.weight", {64}});
    tensors.push_back({p + "post_attention_layernorm.weight", {64}});
  }
  if (drop_one) tensors.erase(tensors.begin() + 5);
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  std::uint32_t state = 12345;
  for (const auto& [name, shape] : tensors) {
    std::uint64_t n = 1;
    for (auto d : shape) n *= static_cast<std::uint64_t>(d);
    const bool norm = name.find("norm") != std::string::npos;
    header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {data.size(), data.size() + 4 * n}}};
    for (std::uint64_t i = 0; i < n; ++i) {
      state = state * 1664525u + 1013904223u;  // LCG: values in [-0.125, 0.125), norms 1
      const float v = norm ? 1.0f : (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.25f;
      data.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  const std::string h = header.dump();
  std::ofstream f(file, std::ios::binary);
  for (int i = 0; i < 8; ++i) f.put(static_cast<char>((h.size() >> (8 * i)) & 0xFF));
  f << h << data;
}

TEST(CliFunctional, RunsOnASafetensorsCheckpoint) {
  const auto dir = scratch_dir("functional_weights");
  const auto model = tiny_model(dir);
  const auto ckpt = dir / "tiny.safetensors";
  write_checkpoint(ckpt, false);
  auto r = run_socsim(run_args(model, "cpu-only") + " --mode functional --weights '" + ckpt.string() + "' --json '" +
                      (dir / "r.json").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto a = nlohmann::json::parse(read_file(dir / "r.json"))["accuracy"];
  EXPECT_EQ(a["weights"], ckpt.string());
  EXPECT_FALSE(a.contains("outlier_channels"));  // a property of synthetic weights only
  EXPECT_GT(a["logits_rel_error"].get<double>(), 0.0);

  write_checkpoint(dir / "broken.safetensors", true);
  r = run_socsim(run_args(model, "cpu-only") + " --mode functional --weights '" + (dir / "broken.safetensors").string() +
                 "' --json '" + (dir / "b.json").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.safetensors: model.layers.0.self_attn.k_proj.bias: tensor missing"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "b.json"));
}

TEST(CliFunctional, BadInputExits2NamingTheOptionAndWritesNothing) {
  const auto dir = scratch_dir("functional_bad");
  const auto model = tiny_model(dir);
  const std::string out = " --json '" + (dir / "r.json").string() + "'";
  const struct {
    std::string args, expect;
  } cases[] = {
      {" --weights x.safetensors", "--weights: applies only with --mode functional"},
      {" --functional-layers 1", "--functional-layers: applies only with --mode functional"},
      {" --mode functional --functional-layers 0", "--functional-layers: must be in [1, 2]"},
      {" --mode functional --functional-layers 3", "--functional-layers: must be in [1, 2]"},
      {" --mode functional --weights '" + (dir / "nope.safetensors").string() + "'", "nope.safetensors: cannot open file"},
      {" --set functional.outlier_channels=2", "functional: settings apply only with --mode functional"},
      {" --mode functional --set functional.outlier_channels=65", "functional.outlier_channels"},
      {" --mode functional --set functional.outlier_scale=0", "functional.outlier_scale"},
      {" --mode functional --set functional.outlier_chanels=2", "did you mean 'outlier_channels'"},
  };
  for (const auto& c : cases) {
    const auto r = run_socsim(run_args(model) + c.args + out);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json")) << c.args;
  }
  // A configuration functional mode cannot compute says so (it was an internal error, exit 1).
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model '" + model.string() +
                            "' --system tts-npu --prompt 24 --decode 0 --mode functional --set tts.role=reward" + out);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--mode: tts.role=reward: functional mode computes and compares lm_head's logits"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

// tts-npu's samples stop at the model's eos_token_id: in functional mode each sample's length
// comes from its greedy tokens and the decode shrinks with the batch (fewer rows, less time than
// timing mode, which the report states); in timing mode the ids change nothing.
TEST(CliFunctional, TtsSampleLengthsComeFromTheData) {
  const auto dir = scratch_dir("functional_tts_eos");
  const auto model = dir / "tiny-eos.json";
  std::ofstream(model) << R"({"model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "tie_word_embeddings": true, "max_position_embeddings": 2048,
    "eos_token_id": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]})";
  const std::string args = "run --soc snapdragon-8gen3 --model '" + model.string() + "' --system tts-npu --prompt 24 --decode 12 --batch 8 --seed 5";
  const auto f = run_socsim_json(args + " --mode functional", "functional_tts_eos_f");
  const auto t = run_socsim_json(args, "functional_tts_eos_t");
  const auto& d = f.at("data_driven");
  ASSERT_EQ(d.at("quantities"), "TTS sample lengths") << d.dump();
  const auto& steps = d.at("tts.decode_steps");
  std::uint64_t rows = 0;
  for (const auto& n : steps.at("per_sequence")) rows += n.get<std::uint64_t>();
  EXPECT_EQ(f.at("decode_rows"), rows);
  EXPECT_LT(rows, 8u * 12u);  // seed 5: some samples stop early
  EXPECT_LT(f.at("total_ms").get<double>(), t.at("total_ms").get<double>());
  EXPECT_EQ(d.at("timing_mode").at("total_ms"), t.at("total_ms"));
  EXPECT_FALSE(t.contains("decode_rows"));
  EXPECT_FALSE(t.contains("data_driven"));
}

}  // namespace
}  // namespace socsim::test
