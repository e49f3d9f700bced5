// Inputs the fuzz targets (tests/fuzz, scripts/fuzz.sh) found crashing a parser, kept as tests:
// each must now be an ordinary bad-input error (config::ConfigError: exit 2, file named).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "sim/config/config_error.h"
#include "sim/functional/safetensors_file.h"
#include "sim/model/model_config.h"
#include "tests/support/scratch_dir.h"

namespace socsim {
namespace {

// fuzz_model_config: a number beyond double's range made nlohmann throw out_of_range (406),
// which escaped the parse_error handler and terminated socsim.
TEST(FuzzRegressions, ModelConfigNumberOverflowIsABadInputError) {
  const std::string text = R"({"model_type": "llama", "hidden_size": 64, "x": 1e605})";
  try {
    (void)model::parse_model_config(text, "overflow.json");
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("overflow.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("invalid JSON"), std::string::npos) << e.what();
  }
}

// The safetensors header is JSON too: the same overflow must be a bad file, not a crash.
TEST(FuzzRegressions, SafetensorsHeaderNumberOverflowIsABadInputError) {
  const auto file = test::fresh_scratch_dir("socsim_fuzz_regression_", "st") / "overflow.safetensors";
  const std::string header = R"({"w": {"dtype": "F32", "shape": [1e605], "data_offsets": [0, 4]}})";
  {
    std::ofstream out(file, std::ios::binary);
    const std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xFF));
    out << header << "abcd";
  }
  try {
    const functional::SafetensorsFile st(file);
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("overflow.safetensors"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace socsim
