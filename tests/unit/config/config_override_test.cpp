// --set a.b.c=value: replacing, creating, type errors located at "--set", malformed input.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "sim/config/config_tree.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

using testing::capture_config_error;

ConfigTree soc() {
  return ConfigTree::load_string("dram:\n  peak: 51.2 GB/s\n  channels: 4\nname: x\n",
                                 "soc.yaml");
}

TEST(ConfigOverride, ReplacesExistingValue) {
  ConfigTree tree = soc();
  tree.apply_override("dram.peak=68 GB/s");
  Section dram = tree.root().child("dram");
  EXPECT_DOUBLE_EQ(dram.quantity("peak", Quantity::kBandwidth), 68e9);
  EXPECT_EQ(dram.integer("channels"), 4);  // siblings untouched
  const SourceLocation loc = dram.location_of("peak");
  EXPECT_EQ(loc.file, "--set");
  EXPECT_EQ(loc.line, 0);
}

TEST(ConfigOverride, TypeErrorIsReportedAtSet) {
  ConfigTree tree = soc();
  tree.apply_override("dram.peak=fast");
  const ConfigError e = capture_config_error(
      [&] { tree.root().child("dram").quantity("peak", Quantity::kBandwidth); });
  const std::string what = e.what();
  const std::string prefix = "--set: dram.peak: expected a bandwidth";
  EXPECT_EQ(what.substr(0, prefix.size()), prefix) << what;
  EXPECT_NE(what.find("got \"fast\""), std::string::npos) << what;
}

TEST(ConfigOverride, BareNumberIsMissingUnitAtSet) {
  ConfigTree tree = soc();
  tree.apply_override("dram.peak=68");
  const ConfigError e = capture_config_error(
      [&] { tree.root().child("dram").quantity("peak", Quantity::kBandwidth); });
  const std::string what = e.what();
  EXPECT_EQ(what.rfind("--set: dram.peak: expected a bandwidth", 0), 0u) << what;
  EXPECT_NE(what.find("missing unit"), std::string::npos) << what;
}

TEST(ConfigOverride, AnUnbalancedBracketIsNamedAndQuotesOrPlainBracketsAreNot) {
  const auto message = [](const std::string& assignment) {
    ConfigTree tree = soc();
    try {
      tree.apply_override(assignment);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("dram.list=[1, 2").find("invalid value: an unclosed '['"), std::string::npos);
  EXPECT_NE(message("dram={peak: [1}").find("invalid value: a '}' inside an open '[' (it needs its ']' first"), std::string::npos);
  EXPECT_NE(message("dram.list=[1, 2]]").find("a ']' that closes no '['"), std::string::npos);
  // Brackets inside quoted scalars, an apostrophe inside a plain one, a plain string with a
  // bracket: YAML takes them.
  EXPECT_EQ(message("dram.list=['a]', \"b\\\"[\", 3]"), "");
  EXPECT_EQ(message("dram={name: it's}"), "");
  EXPECT_EQ(message("name=a]b"), "");
  // Only a value the YAML reader refused is looked at: a comment or a '' escape holding a bracket
  // is YAML's to take.
  EXPECT_EQ(message("dram.list=[1, 0.9] # was [1"), "");
  EXPECT_EQ(message("dram.list=['it''s]', 1]"), "");
}

// The warnings --set prints while `body` runs.
template <class F>
std::string warnings_of(F body) {
  std::ostringstream out;
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  spdlog::set_default_logger(logger);
  body();
  spdlog::set_default_logger(previous);
  return out.str();
}

TEST(ConfigOverride, OneSettingGivenTwiceInAnySpellingIsSaidOnce) {
  const auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  ConfigTree a = soc();
  std::string w = warnings_of([&] {
    a.apply_override("dram.peak=1 GB/s");
    a.apply_override("dram={peak: 2 GB/s}");
  });
  EXPECT_EQ(count(w, "--set dram.peak given twice (1 GB/s, then 2 GB/s)"), 1u) << w;
  // Two maps merged into one section that set different keys, or an empty map inside one: not twice.
  ConfigTree b = soc();
  w = warnings_of([&] {
    b.apply_override("dram={peak: 2 GB/s}");
    b.apply_override("dram={channels: 8}");
    b.apply_override("dram={peak: {}}");
  });
  EXPECT_EQ(w, "");
  // A list, then two of its entries: each entry is said, the list still holding its other parts.
  ConfigTree c = soc();
  w = warnings_of([&] {
    c.apply_override("dram.list=[1, 0.9, 0.8]");
    c.apply_override("dram.list.1=0.7");
    c.apply_override("dram.list.2=0.6");
  });
  EXPECT_EQ(count(w, "--set dram.list[1] given twice (dram.list=[1, 0.9, 0.8], then 0.7)"), 1u) << w;
  EXPECT_EQ(count(w, "--set dram.list[2] given twice (dram.list=[1, 0.9, 0.8], then 0.6)"), 1u) << w;
}

TEST(ConfigOverride, CreatesNewKeysAndMaps) {
  ConfigTree tree = soc();
  tree.apply_override("npu.sram.size=8 MiB");
  tree.apply_override("dram.refresh=true");
  Section root = tree.root();
  EXPECT_DOUBLE_EQ(root.child("npu").child("sram").quantity("size", Quantity::kSize),
                   8.0 * 1048576.0);
  EXPECT_TRUE(root.child("dram").boolean("refresh"));
  EXPECT_EQ(root.child("npu").location().file, "--set");
}

TEST(ConfigOverride, NewKeyNeverReadIsUnknownAtSet) {
  ConfigTree tree = soc();
  tree.apply_override("dram.pek=1");
  Section root = tree.root();
  Section dram = root.child("dram");
  dram.quantity("peak", Quantity::kBandwidth);
  dram.integer("channels");
  root.string("name");
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_STREQ(e.what(), "--set: dram.pek: unknown key; did you mean 'peak'?");
}

TEST(ConfigOverride, FlowValues) {
  ConfigTree tree = soc();
  tree.apply_override("dram.weights=[1, 2.5, 3]");
  tree.apply_override("dram={channels: 8}");  // a map over a map merges
  tree.apply_override("name=\"quoted # text\"");
  Section root = tree.root();
  Section dram = root.child("dram");
  EXPECT_EQ(dram.number_list("weights"), (std::vector<double>{1, 2.5, 3}));
  EXPECT_EQ(dram.integer("channels"), 8);
  EXPECT_TRUE(dram.has("peak"));
  EXPECT_EQ(root.string("name"), "quoted # text");
}

TEST(ConfigOverride, IndexIntoList) {
  ConfigTree tree = ConfigTree::load_string(
      "clusters:\n  - cores: 4\n  - cores: 2\n", "soc.yaml");
  tree.apply_override("clusters.1.cores=6");
  Section clusters = tree.root().child("clusters");
  EXPECT_EQ(clusters.at(1).integer("cores"), 6);
  EXPECT_EQ(clusters.at(0).integer("cores"), 4);
  const ConfigError e = capture_config_error([&] { tree.apply_override("clusters.2.cores=1"); });
  EXPECT_EQ(e.key(), "clusters.2.cores");
}

TEST(ConfigOverride, CannotDescendIntoAScalar) {
  ConfigTree tree = soc();
  const ConfigError e = capture_config_error([&] { tree.apply_override("name.first=a"); });
  EXPECT_EQ(e.location().file, "--set");
  EXPECT_EQ(e.key(), "name.first");
  EXPECT_EQ(e.message(), "cannot set a key inside \"name\", which is \"x\", not a map");
  // dram.peak is a scalar: dram.peak.x cannot be set either.
  EXPECT_THROW(tree.apply_override("dram.peak.x=1"), ConfigError);
}

TEST(ConfigOverride, MalformedAssignments) {
  ConfigTree tree = soc();
  const ConfigError no_eq = capture_config_error([&] { tree.apply_override("dram.peak"); });
  EXPECT_EQ(no_eq.location().file, "--set");
  EXPECT_EQ(no_eq.location().line, 0);
  EXPECT_EQ(no_eq.message(), "expected key=value, got \"dram.peak\"");
  EXPECT_THROW(tree.apply_override("=5"), ConfigError);
  EXPECT_THROW(tree.apply_override("dram..peak=5"), ConfigError);
  EXPECT_THROW(tree.apply_override(".peak=5"), ConfigError);
  EXPECT_THROW(tree.apply_override("dram.=5"), ConfigError);
  const ConfigError bad_yaml = capture_config_error([&] { tree.apply_override("a=[1, 2"); });
  EXPECT_EQ(bad_yaml.key(), "a");
  EXPECT_FALSE(tree.root().has("a"));  // nothing half-applied
}

TEST(ConfigOverride, EmptyValueIsNull) {
  ConfigTree tree = soc();
  tree.apply_override("name=");
  const ConfigError e = capture_config_error([&] { tree.root().string("name"); });
  EXPECT_STREQ(e.what(), "--set: name: expected a string, got an empty value");
}

}  // namespace
}  // namespace socsim::config
