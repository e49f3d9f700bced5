// shadowAttn's offline importance file (importance_file.h): a round trip, every malformed input
// named by file and key, and which importance the system takes by default.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>

#include "sim/config/config_error.h"
#include "sim/systems/shadowattn/importance_file.h"
#include "tests/support/configured_system.h"
#include "tests/support/scratch_dir.h"
#include "tests/unit/functional/functional_test_helpers.h"

namespace socsim::systems::shadowattn {
namespace {

OfflineImportance sample(const model::ModelConfig& m) {
  OfflineImportance o;
  o.model = m.id;
  o.seed = 7;
  o.options.sequences = 3, o.options.tokens = 16, o.options.scored = 4, o.options.vocab_rows = 64;
  o.calibration.layers_calibrated = m.layers;
  o.calibration.layer_passes = 11;
  o.calibration.base_entropy = 4.5;
  for (std::uint64_t l = 0; l < m.layers; ++l) {
    o.calibration.importance.layer.push_back(0.25 + static_cast<double>(l));
    for (std::uint64_t h = 0; h < m.heads; ++h) o.calibration.importance.head.push_back(0.01 * static_cast<double>(l * m.heads + h + 1));
  }
  return o;
}

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto p = test::fresh_scratch_dir("socsim_importance_file_", name) / "f.importance.json";
  std::ofstream(p) << text;
  return p;
}

TEST(ShadowAttnImportanceFile, RoundTrip) {
  const auto m = functional::test::tiny_model();
  const auto o = sample(m);
  const auto back = read_importance_file(write("roundtrip", importance_json(m, o).dump(1)), m);
  EXPECT_EQ(back.model, m.id);
  EXPECT_EQ(back.seed, 7u);
  EXPECT_EQ(back.options.sequences, 3u);
  EXPECT_EQ(back.options.tokens, 16u);
  EXPECT_EQ(back.options.scored, 4u);
  EXPECT_EQ(back.options.vocab_rows, 64u);
  EXPECT_EQ(back.calibration.layers_calibrated, m.layers);
  EXPECT_EQ(back.calibration.layer_passes, 11u);
  EXPECT_DOUBLE_EQ(back.calibration.base_entropy, 4.5);
  EXPECT_EQ(back.calibration.importance.layer, o.calibration.importance.layer);
  EXPECT_EQ(back.calibration.importance.head, o.calibration.importance.head);  // layer-major, as the ratios expect
}

TEST(ShadowAttnImportanceFile, BadInputNamesTheFileAndTheKey) {
  const auto m = functional::test::tiny_model();
  const auto good = importance_json(m, sample(m));
  struct Case {
    std::string name, key;
    std::function<void(nlohmann::ordered_json&)> edit;
  };
  const std::vector<Case> cases = {
      {"no_layers", "layers", [](auto& j) { j.erase("layers"); }},
      {"other_model", "layers", [](auto& j) { j["heads"] = j["heads"].template get<int>() + 1; }},
      {"negative", "head_importance[0][1]", [](auto& j) { j["head_importance"][0][1] = -0.5; }},
      {"text", "layer_importance[0]", [](auto& j) { j["layer_importance"][0] = "high"; }},
      {"short_row", "head_importance[1]", [](auto& j) { j["head_importance"][1].erase(0); }},
      {"seed", "seed", [](auto& j) { j["seed"] = -1; }},
      {"nested", "calibration.tokens", [](auto& j) { j["calibration"].erase("tokens"); }},
      {"same_shape_other_model", "model", [](auto& j) { j["model"] = "a-fine-tune-of-the-same-shape"; }},
      // Found by the fifth audit: a stray key (a 60 MB one too) and a negative entropy were taken.
      {"unknown_key", "extra_key", [](auto& j) { j["extra_key"] = 1; }},
      {"unknown_nested_key", "calibration.tokenz", [](auto& j) { j["calibration"]["tokenz"] = 16; }},
      {"negative_entropy", "base_entropy_nats", [](auto& j) { j["base_entropy_nats"] = -1e308; }},
  };
  for (const auto& c : cases) {
    auto j = good;
    c.edit(j);
    const auto file = write(c.name, j.dump());
    try {
      read_importance_file(file, m);
      ADD_FAILURE() << c.name << ": accepted";
    } catch (const config::ConfigError& e) {
      EXPECT_EQ(e.key(), c.key) << c.name << ": " << e.what();
      EXPECT_EQ(e.location().file, file.string()) << c.name;
    }
  }
  // A hand-merged file with "seed" twice: refused at the repeat's line, not read as the last one.
  std::string twice = good.dump(1);
  twice.insert(twice.find("\"seed\""), "\"seed\": 99,\n");
  try {
    read_importance_file(write("duplicate", twice), m);
    ADD_FAILURE() << "a repeated key was accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key(), "seed") << e.what();
    EXPECT_GT(e.location().line, 1) << e.what();
  }
  // Errors name the key's line: the file as `socsim calibrate` writes it, one key a line.
  auto pretty = good;
  pretty["layer_importance"][1] = "high";
  const std::string text = pretty.dump(1);
  try {
    read_importance_file(write("line", text), m);
    ADD_FAILURE() << "a text importance was accepted";
  } catch (const config::ConfigError& e) {
    const auto at = text.find("\"layer_importance\"");
    EXPECT_EQ(e.location().line, 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) << e.what();
  }
  // A binary file is named as one (it was "unexpected end of input" at line 1).
  try {
    static constexpr char kBinary[] = "{\"model\":\n\0\xff\xfe}";  // a NUL inside: its length from sizeof
    read_importance_file(write("binary", std::string(kBinary, sizeof kBinary - 1)), m);
    ADD_FAILURE() << "a binary file was accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.location().line, 2) << e.what();
    EXPECT_NE(std::string(e.what()).find("is not UTF-8 text"), std::string::npos) << e.what();
  }
  const auto broken = write("broken", "{\"model\": ");
  EXPECT_THROW(read_importance_file(broken, m), config::ConfigError);
  EXPECT_THROW(read_importance_file(broken.parent_path() / "missing.json", m), config::ConfigError);
}

TEST(ShadowAttnImportanceFile, SystemReadsTheCommittedFileByDefault) {
  // qwen2-0.5b has models/shadowattn/qwen2-0.5b.importance.json; gemma-2b has none.
  const auto importance_of = [](const std::string& model, std::vector<std::string> sets) {
    sets.push_back("llm_npu.chunk=32");
    test::ConfiguredSystem s("snapdragon-8gen3", sets);
    s.req.model = model::load_model_config(std::string(SOCSIM_SOURCE_DIR) + "/models/" + model + ".json");
    s.req.prompt_tokens = 64, s.req.decode_tokens = 1;
    s.configure("shadowattn");
    return s.plan().info["importance"];
  };
  const auto committed = importance_of("qwen2-0.5b", {});
  EXPECT_EQ(committed["source"].get<std::string>().rfind("offline file qwen2-0.5b.importance.json", 0), 0u) << committed.dump();
  EXPECT_EQ(committed["layers_calibrated"], 24);
  EXPECT_EQ(importance_of("qwen2-0.5b", {"shadowattn.importance=synthetic"})["source"], "synthetic");
  EXPECT_EQ(importance_of("gemma-2b", {})["source"], "synthetic (no offline calibration for gemma-2b)");
  EXPECT_THROW(importance_of("gemma-2b", {"shadowattn.importance=offline"}), config::ConfigError);
  EXPECT_THROW(importance_of("qwen2-0.5b", {"shadowattn.importance=synthetic", "shadowattn.importance_file=x.json"}), config::ConfigError);
}

}  // namespace
}  // namespace socsim::systems::shadowattn
