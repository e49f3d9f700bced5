// max_position_embeddings in a model's config.json is required: a config that lost it ran with a
// guessed 2048-token window (found by a hostile-input audit), refusing prompts the model takes or
// running ones it cannot.
#include <gtest/gtest.h>

#include <string>

#include "sim/config/config_error.h"
#include "sim/model/model_config.h"

namespace socsim::model {
namespace {

const std::string kBody = R"("model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "vocab_size": 100)";

TEST(ModelConfigWindow, TheWindowIsRead) {
  EXPECT_EQ(parse_model_config("{" + kBody + R"(, "max_position_embeddings": 4096})", "m.json").max_context, 4096u);
}

TEST(ModelConfigWindow, AConfigWithoutItIsAnErrorNamingTheKey) {
  try {
    (void)parse_model_config("{" + kBody + "}", "m.json");
    FAIL() << "a config without max_position_embeddings was accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key(), "max_position_embeddings");
    EXPECT_EQ(e.location().file, "m.json");
  }
}

}  // namespace
}  // namespace socsim::model
