// include: merging (maps merge, scalars and lists replace), locations from every file, cycles.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

using testing::capture_config_error;
using testing::data_file;

TEST(ConfigInclude, IncludingFileOverridesIncludedFile) {
  ConfigTree tree = ConfigTree::load_file(data_file("soc_product.yaml"));
  Section root = tree.root();
  Section dram = root.child("dram");
  EXPECT_DOUBLE_EQ(dram.quantity("peak", Quantity::kBandwidth), 68e9);  // from product
  EXPECT_EQ(dram.integer("channels"), 4);                               // kept from base
  EXPECT_EQ(dram.time("latency"), 100'000u);                            // 100 ns
  EXPECT_EQ(root.child("soc").string("name"), "base_soc");
  EXPECT_EQ(root.child("npu").integer("tops"), 40);  // only in product
}

TEST(ConfigInclude, LocationsComeFromTheDefiningFile) {
  ConfigTree tree = ConfigTree::load_file(data_file("soc_product.yaml"));
  Section dram = tree.root().child("dram");
  const SourceLocation peak = dram.location_of("peak");
  EXPECT_EQ(peak.file, data_file("soc_product.yaml"));
  EXPECT_EQ(peak.line, 4);
  EXPECT_EQ(peak.column, 9);
  const SourceLocation channels = dram.location_of("channels");
  EXPECT_EQ(channels.file, data_file("soc_base.yaml"));
  EXPECT_EQ(channels.line, 7);
  const SourceLocation soc_name = tree.root().child("soc").location_of("name");
  EXPECT_EQ(soc_name.file, data_file("soc_base.yaml"));
  EXPECT_EQ(soc_name.line, 3);
}

TEST(ConfigInclude, ErrorsPointIntoTheIncludedFile) {
  ConfigTree tree = ConfigTree::load_file(data_file("soc_product.yaml"));
  const ConfigError e = capture_config_error(
      [&] { tree.root().child("soc").integer("name"); });
  EXPECT_EQ(std::string(e.what()),
            data_file("soc_base.yaml") + ":3: soc.name: expected an integer, got \"base_soc\"");
}

TEST(ConfigInclude, ListsReplaceRatherThanAppend) {
  ConfigTree tree = ConfigTree::load_file(data_file("soc_product.yaml"));
  Section clusters = tree.root().child("cpu").child("clusters");
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters.at(0).string("name"), "big");
  EXPECT_EQ(clusters.at(0).location_of("cores").file, data_file("soc_product.yaml"));
}

TEST(ConfigInclude, IncludeKeyIsConsumedAndRemoved) {
  ConfigTree tree = ConfigTree::load_file(data_file("soc_product.yaml"));
  Section root = tree.root();
  EXPECT_FALSE(root.has("include"));
  // Keys in document order: the included file's keys first, then new keys of the product.
  EXPECT_EQ(root.keys(), (std::vector<std::string>{"soc", "dram", "cpu", "npu"}));
}

TEST(ConfigInclude, ListOfIncludesAndNestedRelativePaths) {
  // soc_layers.yaml includes soc_base.yaml and nested/dram_lpddr5x.yaml, which itself
  // includes ../gpu_common.yaml relative to nested/.
  ConfigTree tree = ConfigTree::load_file(data_file("soc_layers.yaml"));
  Section root = tree.root();
  EXPECT_DOUBLE_EQ(root.child("dram").quantity("peak", Quantity::kBandwidth), 77e9);
  EXPECT_EQ(root.child("dram").integer("channels"), 4);
  EXPECT_EQ(root.child("gpu").integer("cores"), 12);
  EXPECT_EQ(root.child("soc").string("name"), "layered");
  EXPECT_EQ(root.child("gpu").location_of("cores").file,
            data_file("nested/../gpu_common.yaml"));
}

TEST(ConfigInclude, CycleIsNamed) {
  const std::string a = data_file("cycle_a.yaml");
  const std::string b = data_file("cycle_b.yaml");
  const ConfigError e = capture_config_error([&] { ConfigTree::load_file(a); });
  EXPECT_EQ(e.key(), "include");
  EXPECT_EQ(e.message(), "include cycle: " + a + " -> " + b + " -> " + a);
  EXPECT_EQ(e.location().file, b);  // the include that closes the cycle
  EXPECT_EQ(e.location().line, 1);
}

TEST(ConfigInclude, MissingIncludedFilePointsAtTheIncludeLine) {
  const std::string path = data_file("include_missing.yaml");
  const ConfigError e = capture_config_error([&] { ConfigTree::load_file(path); });
  EXPECT_EQ(e.location().file, path);
  EXPECT_EQ(e.location().line, 2);
  EXPECT_EQ(e.key(), "include");
  EXPECT_EQ(e.message().rfind("cannot open file", 0), 0u) << e.message();
}

TEST(ConfigInclude, LoadStringResolvesIncludesFromWorkingDirectory) {
  // An absolute path works regardless of the working directory.
  ConfigTree tree = ConfigTree::load_string(
      "include: " + data_file("gpu_common.yaml") + "\ngpu:\n  freq: 1 GHz\n", "inline.yaml");
  Section gpu = tree.root().child("gpu");
  EXPECT_EQ(gpu.integer("cores"), 12);
  EXPECT_DOUBLE_EQ(gpu.quantity("freq", Quantity::kFrequency), 1e9);
  EXPECT_EQ(gpu.location_of("freq").file, "inline.yaml");
}

// An empty map over an included map merges nothing: refused where it is written, not passed in
// silence (the user meant to clear the section; only an empty map over nothing is a plain value).
TEST(ConfigInclude, AnEmptyMapOverAnIncludedMapIsRefused) {
  const std::string include = "include: " + data_file("soc_base.yaml") + "\n";
  const ConfigError top = capture_config_error([&] { ConfigTree::load_string(include + "dram: {}\n", "e.yaml"); });
  EXPECT_EQ(top.key(), "dram");
  EXPECT_EQ(top.location().file, "e.yaml");
  EXPECT_EQ(top.location().line, 2);
  EXPECT_EQ(top.message(),
            "an empty map changes nothing here: a file's maps merge into the included files' maps (keeping their other "
            "keys) and cannot remove them; give the keys to change, e.g. dram: {peak: ...}");
  // Over nothing, or over a scalar, an empty map is a value like any other (the section's reader judges it).
  ConfigTree fine = ConfigTree::load_string(include + "npu: {}\nsoc: {name: {}}\n", "f.yaml");
  EXPECT_EQ(fine.root().child("npu").keys().size(), 0u);
  // The same rule for a map nested in --set's value, with --set's own explanation and the nested key.
  ConfigTree set = ConfigTree::load_string("a:\n  b:\n    c: 1\n", "s.yaml");
  const ConfigError nested = capture_config_error([&] { set.apply_override("a={b: {}}"); });
  EXPECT_EQ(nested.key(), "a.b");
  EXPECT_EQ(nested.message(),
            "an empty map changes nothing here: --set merges a map into the section (keeping its other keys) and cannot "
            "remove them; set the keys to change, e.g. --set a.b.c=<value>");
  // --set's own check of a whole section says the same, with the section's first key as the example.
  const ConfigError whole = capture_config_error([&] { set.apply_override("a={}"); });
  EXPECT_EQ(whole.key(), "a");
  EXPECT_EQ(whole.message(),
            "an empty map changes nothing here: --set merges a map into the section (keeping its other keys) and cannot "
            "remove them; set the keys to change, e.g. --set a.b=<value>");
}

TEST(ConfigInclude, IncludeMustBeFileNames) {
  const ConfigError e =
      capture_config_error([] { ConfigTree::load_string("include:\n  a: 1\n", "bad.yaml"); });
  EXPECT_EQ(e.key(), "include");
  EXPECT_EQ(e.message(), "expected a file name or a list of file names, got a map");
}

}  // namespace
}  // namespace socsim::config
