#pragma once
// The loaded configuration: YAML files (with includes) plus --set overrides, read through
// Section handles. Strict by design: every value is typed and range-checked where it is read,
// defaults are stated by the caller (never silent), and check_all_consumed() turns typos and
// stale keys into errors instead of silently ignored settings.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/config/units.h"

namespace socsim::config {

namespace detail {
struct Node;
}

class Section;

class ConfigTree {
 public:
  static ConfigTree load_file(const std::filesystem::path& path);  // resolves `include:`
  // For tests and embedding; include paths are relative to the working directory.
  static ConfigTree load_string(std::string_view yaml, std::string file_name);

  ConfigTree(ConfigTree&&) noexcept;
  ConfigTree& operator=(ConfigTree&&) noexcept;
  ~ConfigTree();

  // "a.b.c=value": the value is parsed as YAML (scalar or flow node) and replaces the old one
  // (a map over a map merges, as with includes). Missing intermediate maps are created; keys
  // created this way must still be read, see check_all_consumed(). Locations become "--set".
  // Apply overrides before taking Sections: a replaced node invalidates handles to it. A key set
  // twice (--set npu.tcm=2MiB --set npu.tcm=8MiB) keeps the later value with a console warning
  // (layered settings are a way of working; silence is not).
  void apply_override(std::string_view assignment);

  Section root();

  // Throws ConfigError for the first key (document order) that no reader consumed:
  // "unknown key", plus "; did you mean 'peak'?" when a sibling is within edit distance 2.
  void check_all_consumed() const;

  // The resolved tree (after includes and overrides), keys in document order.
  std::string dump_yaml() const;

  // The files the tree was read from: the one loaded first, then every file it includes.
  const std::vector<std::filesystem::path>& files() const { return files_; }

 private:
  explicit ConfigTree(std::unique_ptr<detail::Node> root);

  std::unique_ptr<detail::Node> root_;  // heap-allocated so Sections survive moving the tree
  std::map<std::string, std::string> overridden_;  // dotted key -> its --set value, as given
  std::vector<std::filesystem::path> files_;
};

// A view of one map (or list of maps) in a ConfigTree. Cheap to copy; valid while the tree
// lives. Reading a key marks it consumed. Every error names the full dotted key and the
// file:line of the offending value.
class Section {
 public:
  std::string path() const;         // dotted path, "" for the root
  SourceLocation location() const;  // where this map is defined
  bool has(std::string_view key) const;
  std::vector<std::string> keys() const;  // document order; does not consume

  Section child(std::string_view key) const;  // required sub-map (or list of maps)
  std::optional<Section> optional_child(std::string_view key) const;

  double number(std::string_view key) const;
  double number(std::string_view key, double min, double max) const;
  std::int64_t integer(std::string_view key) const;
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max) const;
  bool boolean(std::string_view key) const;  // true/false only
  std::string string(std::string_view key) const;
  std::string choice(std::string_view key, std::initializer_list<std::string_view> allowed) const;
  double quantity(std::string_view key, Quantity q) const;  // SI base units
  double quantity(std::string_view key, Quantity q, double min, double max) const;
  Tick time(std::string_view key) const;  // picoseconds, exact
  double positive_quantity(std::string_view key, Quantity q) const;  // strictly > 0
  // `example`: a list the key takes, shown when the value is not a list.
  std::vector<double> number_list(std::string_view key, std::string_view example = "[64, 128]") const;
  // A list of scalars as written, each with its own file:line (sweep grids).
  struct Scalar {
    std::string text;
    SourceLocation location;
  };
  std::vector<Scalar> scalar_list(std::string_view key) const;
  // A value as --set takes it (sweep settings): a scalar's text, a list or map in YAML flow form
  // ("[32, 64]", "{tcm: 8MiB}"). An empty value is refused.
  std::string value_text(std::string_view key) const;
  // A non-empty list of such values, each with its own file:line (sweep grid axes).
  std::vector<Scalar> value_list(std::string_view key) const;

  // Explicit defaults: the caller states them; a present value must still be well-typed.
  double number_or(std::string_view key, double dflt) const;
  std::int64_t integer_or(std::string_view key, std::int64_t dflt) const;
  bool boolean_or(std::string_view key, bool dflt) const;
  std::string string_or(std::string_view key, std::string dflt) const;

  SourceLocation location_of(std::string_view key) const;  // does not consume
  // Throws ConfigError at the first of `keys` present ("<path>.<key>: <why>"): options of a
  // mechanism the reader does not have in this configuration, refused rather than ignored.
  void refuse(std::initializer_list<std::string_view> keys, const std::string& why) const;
  // A rule between keys of this map (session_limit <= address_space) is broken by the value the
  // user changed: the first of `keys` given with --set, else the first of `keys` (the file's own
  // line). Errors blame that key, not a file line the user never touched.
  std::string_view changed_of(std::initializer_list<std::string_view> keys) const;

  // A child that must be a list (of maps): "expected a list, got ..." for anything else.
  Section list_child(std::string_view key) const;
  // When this section is a list of maps (e.g. cpu clusters).
  std::size_t size() const;
  Section at(std::size_t i) const;

 private:
  friend class ConfigTree;
  Section(const detail::Node* node, std::string path);
  // A non-empty list's items as text (`text_of(item, its dotted path)`), each with its file:line.
  template <typename TextOf>
  std::vector<Scalar> items_of(std::string_view key, TextOf text_of) const;

  const detail::Node* node_;
  std::string path_;
};

}  // namespace socsim::config
