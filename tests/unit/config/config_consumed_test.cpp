// check_all_consumed: keys nobody read are errors, with a did-you-mean hint.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

using testing::capture_config_error;

TEST(ConfigConsumed, AllReadPasses) {
  ConfigTree tree = ConfigTree::load_string("a: 1\nm:\n  b: x\n", "c.yaml");
  Section root = tree.root();
  root.integer("a");
  root.child("m").string("b");
  EXPECT_NO_THROW(tree.check_all_consumed());
}

TEST(ConfigConsumed, TypoGetsDidYouMean) {
  ConfigTree tree =
      ConfigTree::load_string("dram:\n  peak: 68 GB/s\n  chanels: 4\n", "soc.yaml");
  Section dram = tree.root().child("dram");
  dram.quantity("peak", Quantity::kBandwidth);
  EXPECT_EQ(dram.integer_or("channels", 2), 2);  // the reader asked for "channels"
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_STREQ(e.what(), "soc.yaml:3: dram.chanels: unknown key; did you mean 'channels'?");
  EXPECT_EQ(e.location().column, 3);
}

TEST(ConfigConsumed, SuggestsAnExistingSibling) {
  // "peek" is a duplicate-by-typo of "peak", which was read: distance 1.
  ConfigTree tree = ConfigTree::load_string("dram:\n  peak: 1 GB/s\n  peek: 2 GB/s\n", "s.yaml");
  tree.root().child("dram").quantity("peak", Quantity::kBandwidth);
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_EQ(e.key(), "dram.peek");
  EXPECT_EQ(e.message(), "unknown key; did you mean 'peak'?");
}

TEST(ConfigConsumed, NeverSuggestsAnotherUnknownKey) {
  // Found by a hostile-input audit: "zzz" was answered with "did you mean 'zzzz'?", a key just as
  // unknown.
  ConfigTree tree = ConfigTree::load_string("dram:\n  peak: 1 GB/s\n  zzz: 1\n  zzzz: 2\n", "s.yaml");
  tree.root().child("dram").quantity("peak", Quantity::kBandwidth);
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_EQ(e.key(), "dram.zzz");
  EXPECT_EQ(e.message(), "unknown key; expected one of: peak");
}

// Duplicates are found by key, not by a walk over the map (10^5 keys took seconds, 10^6 minutes):
// the duplicate of the first key after 200,000 others, with the first one's line.
TEST(ConfigConsumed, ADuplicateAmongManyKeysIsFoundWithItsFirstLine) {
  std::string text = "a: 1\n";
  for (int i = 0; i < 200000; ++i) text += "k" + std::to_string(i) + ": 1\n";
  text += "a: 2\n";
  const ConfigError e = capture_config_error([&] { (void)ConfigTree::load_string(text, "big.yaml"); });
  EXPECT_EQ(e.key(), "a");
  EXPECT_EQ(e.location().line, 200002);
  EXPECT_EQ(e.message(), "duplicate key (first defined at line 1)");
}

TEST(ConfigConsumed, NoSuggestionBeyondDistanceTwo) {
  ConfigTree tree = ConfigTree::load_string("dram:\n  peak: 1 GB/s\n  colour: red\n", "s.yaml");
  tree.root().child("dram").quantity("peak", Quantity::kBandwidth);
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_EQ(e.key(), "dram.colour");
  // No near miss: the message lists what the section takes instead.
  EXPECT_EQ(e.message(), "unknown key; expected one of: peak");
}

TEST(ConfigConsumed, NoSuggestionThatReplacesTheWholeKey) {
  // "a" and "b" are one edit apart, but nothing of "b" survives: not a plausible typo.
  ConfigTree tree = ConfigTree::load_string("b: 1\na: 2\n", "s.yaml");
  tree.root().integer("b");
  EXPECT_EQ(capture_config_error([&] { tree.check_all_consumed(); }).message(), "unknown key; expected one of: b");
}

TEST(ConfigConsumed, FirstUnknownInDocumentOrder) {
  ConfigTree tree = ConfigTree::load_string("z: 1\na: 2\nm:\n  q: 3\n", "o.yaml");
  tree.root().child("m");
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_EQ(e.key(), "z");
  EXPECT_EQ(e.location().line, 1);
}

TEST(ConfigConsumed, UnreadSectionIsReportedAsAWhole) {
  ConfigTree tree = ConfigTree::load_string("a: 1\ngpu:\n  cores: 4\n", "o.yaml");
  tree.root().integer("a");
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_EQ(e.key(), "gpu");
  EXPECT_EQ(e.location().line, 2);
}

TEST(ConfigConsumed, ReadSectionWithUnreadChild) {
  ConfigTree tree = ConfigTree::load_string("gpu:\n  cores: 4\n  freq: 1 GHz\n", "o.yaml");
  tree.root().child("gpu").integer("cores");
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_STREQ(e.what(), "o.yaml:3: gpu.freq: unknown key; expected one of: cores");
}

TEST(ConfigConsumed, KeysInListsOfMaps) {
  ConfigTree tree = ConfigTree::load_string(
      "clusters:\n  - cores: 4\n  - cores: 2\n    freq: 2 GHz\n", "o.yaml");
  Section clusters = tree.root().child("clusters");
  for (std::size_t i = 0; i < clusters.size(); ++i) clusters.at(i).integer("cores");
  const ConfigError e = capture_config_error([&] { tree.check_all_consumed(); });
  EXPECT_EQ(e.key(), "clusters[1].freq");
  EXPECT_EQ(e.location().line, 4);
}

TEST(ConfigConsumed, HasAndKeysAndLocationOfDoNotConsume) {
  ConfigTree tree = ConfigTree::load_string("a: 1\n", "o.yaml");
  Section root = tree.root();
  EXPECT_TRUE(root.has("a"));
  EXPECT_EQ(root.keys(), std::vector<std::string>{"a"});
  EXPECT_EQ(root.location_of("a").line, 1);
  EXPECT_THROW(tree.check_all_consumed(), ConfigError);
  root.integer("a");
  EXPECT_NO_THROW(tree.check_all_consumed());
}

TEST(ConfigConsumed, DefaultedReadOfPresentKeyConsumes) {
  ConfigTree tree = ConfigTree::load_string("a: 3\nb: true\nc: s\nd: 2.5\n", "o.yaml");
  Section root = tree.root();
  EXPECT_EQ(root.integer_or("a", 1), 3);
  EXPECT_TRUE(root.boolean_or("b", false));
  EXPECT_EQ(root.string_or("c", "dflt"), "s");
  EXPECT_DOUBLE_EQ(root.number_or("d", 0.0), 2.5);
  EXPECT_NO_THROW(tree.check_all_consumed());
}

}  // namespace
}  // namespace socsim::config
