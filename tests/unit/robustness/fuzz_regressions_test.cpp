// Inputs the fuzz targets (tests/fuzz, scripts/fuzz.sh) found crashing a parser, kept as tests:
// each must now be an ordinary bad-input error (config::ConfigError: exit 2, file named).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "sim/config/config_error.h"
#include "sim/config/config_tree.h"
#include "sim/functional/safetensors_file.h"
#include "sim/model/model_config.h"
#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_spec.h"
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

// fuzz_soc_yaml: an include whose name has a component past the file system's NAME_MAX made
// std::filesystem::is_regular_file throw filesystem_error ("File name too long"), which escaped
// as a crash (exit 1 from the CLI); it is a file that cannot be opened, named at the include line.
TEST(FuzzRegressions, IncludeOfANameTooLongIsABadInputError) {
  const std::string text = "a: 1\ninclude: does_" + std::string(400, '4') + "/_exist.yaml\n";
  try {
    (void)config::ConfigTree::load_string(text, "long-include.yaml");
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("long-include.yaml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot open file"), std::string::npos) << e.what();
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

// fuzz_sweep_spec: a grid of 12 axes x 10 values is 10^12 runs; expanding it threw std::bad_alloc
// (exit 1). It must be refused before anything is allocated, naming the grid.
TEST(FuzzRegressions, SweepGridTooLargeIsABadInputError) {
  const auto file = test::fresh_scratch_dir("socsim_fuzz_regression_", "sweep") / "big.yaml";
  {
    std::ofstream out(file);
    out << "name: big\nbase:\n  system: cpu-only\ngrid:\n";
    for (int i = 0; i < 12; ++i) out << "  k" << i << ".x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  }
  const auto spec = sweep::load_sweep_spec(file);
  try {
    (void)sweep::expand_sweep(spec);
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key(), "grid");
    EXPECT_EQ(e.location().line, 5);
    EXPECT_NE(std::string(e.what()).find("more than 1000000 runs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace socsim
