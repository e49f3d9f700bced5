// Loading: YAML syntax errors, duplicate keys, top-level shape and unreadable files.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

using testing::capture_config_error;
using testing::data_file;

TEST(ConfigLoad, SyntaxErrorReportsOneBasedLine) {
  // "  b: 2" on line 2 cannot follow a scalar value; yaml-cpp marks it 0-based (1, 3).
  const ConfigError e =
      capture_config_error([] { ConfigTree::load_string("a: 1\n  b: 2\n", "inline.yaml"); });
  EXPECT_EQ(e.location().file, "inline.yaml");
  EXPECT_EQ(e.location().line, 2);
  EXPECT_EQ(e.location().column, 4);
  EXPECT_EQ(e.key(), "");
  EXPECT_EQ(e.message(), "illegal map value");
  EXPECT_STREQ(e.what(), "inline.yaml:2: illegal map value");
}

TEST(ConfigLoad, SyntaxErrorInFile) {
  // The flow sequence opened on line 4 is reported where yaml-cpp gives up: line 5.
  const std::string path = data_file("syntax_error.yaml");
  const ConfigError e = capture_config_error([&] { ConfigTree::load_file(path); });
  EXPECT_EQ(e.location().file, path);
  EXPECT_EQ(e.location().line, 5);
  EXPECT_EQ(e.key(), "");
  EXPECT_FALSE(e.message().empty());
}

TEST(ConfigLoad, DuplicateKeyIsAnError) {
  const std::string path = data_file("duplicate_key.yaml");
  const ConfigError e = capture_config_error([&] { ConfigTree::load_file(path); });
  EXPECT_EQ(e.location().file, path);
  EXPECT_EQ(e.location().line, 4);  // the second "peak"
  EXPECT_EQ(e.key(), "dram.peak");
  EXPECT_EQ(e.message(), "duplicate key (first defined at line 2)");
}

TEST(ConfigLoad, DuplicateKeyAtTopLevel) {
  const ConfigError e =
      capture_config_error([] { ConfigTree::load_string("a: 1\nb: 2\na: 3\n", "dup.yaml"); });
  EXPECT_EQ(e.location().line, 3);
  EXPECT_EQ(e.key(), "a");
}

TEST(ConfigLoad, TopLevelMustBeAMap) {
  const ConfigError list = capture_config_error(
      [] { ConfigTree::load_file(data_file("top_level_list.yaml")); });
  EXPECT_EQ(list.message(), "expected a map at the top level, got a list");
  const ConfigError scalar =
      capture_config_error([] { ConfigTree::load_string("just text", "s.yaml"); });
  EXPECT_EQ(scalar.message(), "expected a map at the top level, got \"just text\"");
  const ConfigError empty = capture_config_error([] { ConfigTree::load_string("", "e.yaml"); });
  EXPECT_EQ(empty.location().file, "e.yaml");
}

TEST(ConfigLoad, MissingFile) {
  const std::string path = data_file("no_such_file.yaml");
  const ConfigError e = capture_config_error([&] { ConfigTree::load_file(path); });
  EXPECT_EQ(e.location().file, path);
  EXPECT_EQ(e.location().line, 0);
  EXPECT_EQ(e.message(), "cannot open file (No such file or directory)");
  EXPECT_EQ(std::string(e.what()), path + ": cannot open file (No such file or directory)");
}

TEST(ConfigLoad, DirectoryIsNotAFile) {
  const ConfigError e = capture_config_error([] { ConfigTree::load_file(data_file("nested")); });
  EXPECT_EQ(e.message(), "cannot open file (Is a directory)");  // the reason, not a bare failure
}

TEST(ConfigLoad, MultipleDocumentsAreRejected) {
  const ConfigError e =
      capture_config_error([] { ConfigTree::load_string("a: 1\n---\nb: 2\n", "m.yaml"); });
  EXPECT_EQ(e.location().line, 2);
}

TEST(ConfigLoad, AnchorsAndAliasesAreCopied) {
  ConfigTree tree = ConfigTree::load_string(
      "base: &b\n  cores: 4\nlittle: *b\n", "alias.yaml");
  Section root = tree.root();
  EXPECT_EQ(root.child("base").integer("cores"), 4);
  EXPECT_EQ(root.child("little").integer("cores"), 4);
  EXPECT_NO_THROW(tree.check_all_consumed());
}

TEST(ConfigLoad, AnAnchoredKeyIsAnAliasAsAValueOrAKey) {
  // An anchor on a key names its text (it was "unknown alias" at the alias's line).
  ConfigTree tree = ConfigTree::load_string("&k name: x\nnote: *k\nm: {*k : y}\n", "key_alias.yaml");
  Section root = tree.root();
  EXPECT_EQ(root.string("name"), "x");
  EXPECT_EQ(root.string("note"), "name");
  EXPECT_EQ(root.child("m").string("name"), "y");
  EXPECT_NO_THROW(tree.check_all_consumed());
}

TEST(ConfigLoad, AnAliasBombIsRefusedBeforeItExpands) {
  // Nine levels of nine aliases: 9^9 = 387 million scalars from 300 bytes. Refused at the alias
  // that would pass a million nodes, quickly and without the memory.
  std::string text = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  const char* names = "abcdefghi";
  for (int l = 1; l < 9; ++l) {
    const std::string prev(1, names[l - 1]), name(1, names[l]);
    text += name + ": &" + name + " [";
    for (int i = 0; i < 9; ++i) text += (i ? ", *" : "*") + prev;
    text += "]\n";
  }
  const ConfigError e = capture_config_error([&] { ConfigTree::load_string(text, "bomb.yaml"); });
  EXPECT_EQ(e.location().file, "bomb.yaml");
  EXPECT_EQ(e.location().line, 7);  // g: the first *f (f holds 9^6 = 531,441 scalars plus its lists) passes the bound
  EXPECT_NE(e.message().find("more than 1000000 nodes (nested aliases multiply"), std::string::npos) << e.message();
  // A file of no alias past the bound on its own (a workload's choices of two million values) is
  // not told its aliases multiply: it has none.
  std::string list = "prompt: {choices: [";
  for (int i = 0; i < 1'000'001; ++i) list += i ? ",1" : "1";
  list += "]}\n";
  const ConfigError l = capture_config_error([&] { ConfigTree::load_string(list, "long.yaml"); });
  EXPECT_NE(l.message().find("more than 1000000 nodes (values, keys, lists and maps"), std::string::npos) << l.message();
  // Few nodes but much text: a 100 KB scalar behind five levels of nine aliases is 5.9 GB.
  std::string big = "s: &s " + std::string(100000, 'x') + "\n";
  std::string prev = "s";
  for (int l = 0; l < 5; ++l) {
    const std::string name = "l" + std::to_string(l);
    big += name + ": &" + name + " [";
    for (int i = 0; i < 9; ++i) big += (i ? ", *" : "*") + prev;
    big += "]\n";
    prev = name;
  }
  const ConfigError t = capture_config_error([&] { ConfigTree::load_string(big, "text.yaml"); });
  EXPECT_NE(t.message().find("MiB of text"), std::string::npos) << t.message();
  // A file within the bound keeps its aliases.
  EXPECT_NO_THROW(ConfigTree::load_string("a: &a [1, 2]\nb: [*a, *a, *a]\n", "ok.yaml"));
}

TEST(ConfigLoad, TreeIsMovableAndSectionsSurviveTheMove) {
  ConfigTree first = ConfigTree::load_string("dram:\n  channels: 4\n", "m.yaml");
  Section dram = first.root().child("dram");
  ConfigTree second = std::move(first);
  EXPECT_EQ(dram.integer("channels"), 4);
  EXPECT_NO_THROW(second.check_all_consumed());
}

}  // namespace
}  // namespace socsim::config
