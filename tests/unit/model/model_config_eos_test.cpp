// eos_token_id in a model's config.json: one id or a list (Llama-3 Instruct), none when absent,
// and a clear error naming the key for anything that is not an id of the vocabulary.
#include <gtest/gtest.h>

#include <string>

#include "sim/config/config_error.h"
#include "sim/model/model_config.h"

namespace socsim::model {
namespace {

ModelConfig parse_with(const std::string& eos) {
  return parse_model_config(R"({"model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 2048)" + eos + "}",
                            "m.json");
}

TEST(ModelConfigEos, OneIdAListOrNone) {
  EXPECT_EQ(parse_with(R"(, "eos_token_id": 7)").eos_token_ids, (std::vector<std::uint64_t>{7}));
  EXPECT_EQ(parse_with(R"(, "eos_token_id": [99, 0, 7])").eos_token_ids, (std::vector<std::uint64_t>{99, 0, 7}));
  EXPECT_TRUE(parse_with("").eos_token_ids.empty());
  EXPECT_TRUE(parse_with(R"(, "eos_token_id": null)").eos_token_ids.empty());
  EXPECT_TRUE(parse_with(R"(, "eos_token_id": [])").eos_token_ids.empty());
}

TEST(ModelConfigEos, AnythingButVocabularyIdsIsAnErrorNamingTheKey) {
  for (const char* bad : {R"(, "eos_token_id": 100)", R"(, "eos_token_id": -1)", R"(, "eos_token_id": "2")", R"(, "eos_token_id": [1, 2.5])",
                          R"(, "eos_token_id": [[1]])", R"(, "eos_token_id": {"id": 1})"}) {
    try {
      parse_with(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("eos_token_id"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("vocab_size = 100"), std::string::npos) << e.what();
    }
  }
}

// The shipped models name theirs (Qwen2's <|endoftext|>, Llama 3's <|end_of_text|>).
TEST(ModelConfigEos, ShippedModelsNameTheirs) {
  const std::string root = SOCSIM_SOURCE_DIR;
  EXPECT_EQ(load_model_config(root + "/models/qwen2-0.5b.json").eos_token_ids, (std::vector<std::uint64_t>{151643}));
  EXPECT_EQ(load_model_config(root + "/models/llama-3.2-3b.json").eos_token_ids, (std::vector<std::uint64_t>{128001}));
}

}  // namespace
}  // namespace socsim::model
