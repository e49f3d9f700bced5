// Section: structure access (child maps, lists of maps, key listing, locations).
// Scalar readers are in section_scalars.cpp and section_quantities.cpp.
#include <utility>

#include "sim/config/config_tree.h"
#include "sim/config/section_access.h"

namespace socsim::config {

using detail::Node;

namespace {

// child() also accepts a list, because a list of maps (cpu clusters) is reached through
// child("clusters").size()/at(i); anything else is not a section.
void check_section_kind(const Node& value, const std::string& key_path) {
  if (value.kind != Node::Kind::kMap && value.kind != Node::Kind::kSequence) {
    detail::throw_expected(value, key_path, "a map");
  }
}

}  // namespace

Section::Section(const detail::Node* node, std::string path)
    : node_(node), path_(std::move(path)) {}

std::string Section::path() const { return path_; }

SourceLocation Section::location() const { return node_->location; }

bool Section::has(std::string_view key) const {
  return detail::find_value(detail::as_map(*node_, path_), key, false) != nullptr;
}

std::vector<std::string> Section::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : detail::as_map(*node_, path_).entries) out.push_back(entry.key);
  return out;
}

Section Section::child(std::string_view key) const {
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  std::string key_path = detail::join_path(path_, key);
  check_section_kind(value, key_path);
  return Section(&value, std::move(key_path));
}

Section Section::list_child(std::string_view key) const {
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  std::string key_path = detail::join_path(path_, key);
  if (value.kind != Node::Kind::kSequence) detail::throw_expected(value, key_path, "a list");
  return Section(&value, std::move(key_path));
}

std::optional<Section> Section::optional_child(std::string_view key) const {
  const Node* value = detail::find_value(detail::as_map(*node_, path_), key, true);
  if (value == nullptr) return std::nullopt;
  std::string key_path = detail::join_path(path_, key);
  check_section_kind(*value, key_path);
  return Section(value, std::move(key_path));
}

void Section::refuse(std::initializer_list<std::string_view> keys, const std::string& why) const {
  for (const std::string_view key : keys) {
    if (has(key)) throw ConfigError(location_of(key), detail::join_path(path_, key), why);
  }
}

std::string_view Section::changed_of(std::initializer_list<std::string_view> keys) const {
  for (const std::string_view key : keys) {
    if (has(key) && location_of(key).file == kCommandLineSetFile) return key;
  }
  return keys.size() > 0 ? *keys.begin() : std::string_view();
}

SourceLocation Section::location_of(std::string_view key) const {
  const Node& map = detail::as_map(*node_, path_);
  const Node* value = detail::find_value(map, key, false);
  if (value == nullptr) {
    throw ConfigError(map.location, detail::join_path(path_, key), "missing required key");
  }
  return value->location;
}

std::size_t Section::size() const {
  if (node_->kind != Node::Kind::kSequence) {
    throw ConfigError(node_->location, path_,
                      "expected a list of maps, got " + detail::describe(*node_));
  }
  return node_->items.size();
}

Section Section::at(std::size_t i) const {
  const std::size_t n = size();
  if (i >= n) {
    throw ConfigError(node_->location, path_,
                      "index " + std::to_string(i) + " out of range, the list has " +
                          std::to_string(n) + " entries");
  }
  const Node& item = *node_->items[i];
  const std::string item_path = detail::index_path(path_, i);
  if (item.kind != Node::Kind::kMap) detail::throw_expected(item, item_path, "a map");
  item.consumed = true;
  return Section(&item, item_path);
}

}  // namespace socsim::config
