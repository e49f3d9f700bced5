#include <gtest/gtest.h>

#include "sim/config/config_error.h"

namespace socsim::config {
namespace {

TEST(ConfigError, WhatHasFileLineKeyAndMessage) {
  const ConfigError e({"soc.yaml", 12, 3}, "dram.peak", "missing required key");
  EXPECT_STREQ(e.what(), "soc.yaml:12: dram.peak: missing required key");
  EXPECT_EQ(e.location().file, "soc.yaml");
  EXPECT_EQ(e.location().line, 12);
  EXPECT_EQ(e.location().column, 3);
  EXPECT_EQ(e.key(), "dram.peak");
  EXPECT_EQ(e.message(), "missing required key");
}

TEST(ConfigError, LineZeroIsOmitted) {
  const ConfigError e({"--set", 0, 0}, "dram.peak", "bad");
  EXPECT_STREQ(e.what(), "--set: dram.peak: bad");
}

TEST(ConfigError, EmptyKeyIsOmitted) {
  const ConfigError e({"soc.yaml", 4, 1}, "", "illegal map value");
  EXPECT_STREQ(e.what(), "soc.yaml:4: illegal map value");
}

TEST(ConfigError, IsARuntimeError) {
  try {
    throw ConfigError({"a.yaml", 1, 1}, "k", "m");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "a.yaml:1: k: m");
  }
}

}  // namespace
}  // namespace socsim::config
