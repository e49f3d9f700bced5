#include "sim/config/config_node.h"

#include <utility>

namespace socsim::config::detail {

const MapEntry* Node::find(std::string_view key) const {
  for (const MapEntry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

MapEntry* Node::find(std::string_view key) {
  for (MapEntry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

std::unique_ptr<Node> make_node(Node::Kind kind, SourceLocation location) {
  auto node = std::make_unique<Node>();
  node->kind = kind;
  node->location = std::move(location);
  return node;
}

std::unique_ptr<Node> clone(const Node& node) {
  auto copy = make_node(node.kind, node.location);
  copy->text = node.text;
  copy->quoted = node.quoted;
  for (const auto& item : node.items) copy->items.push_back(clone(*item));
  for (const MapEntry& e : node.entries) {
    copy->entries.push_back(MapEntry{e.key, e.key_location, clone(*e.value)});
  }
  return copy;
}

std::string empty_map_refusal(std::string_view key_path, const Node& section, MergeBy by) {
  const std::string path(key_path);
  const std::string first = section.entries.empty() ? "<key>" : section.entries.front().key;
  return by == MergeBy::kSetOption
             ? "an empty map changes nothing here: --set merges a map into the section (keeping its other keys) and "
               "cannot remove them; set the keys to change, e.g. --set " + path + "." + first + "=<value>"
             : "an empty map changes nothing here: a file's maps merge into the included files' maps (keeping their "
               "other keys) and cannot remove them; give the keys to change, e.g. " + path + ": {" + first + ": ...}";
}

void merge_into(Node& base, std::unique_ptr<Node> overlay, std::string_view path, MergeBy by) {
  for (MapEntry& incoming : overlay->entries) {
    MapEntry* existing = base.find(incoming.key);
    if (existing == nullptr) {
      base.entries.push_back(std::move(incoming));
    } else if (existing->value->kind == Node::Kind::kMap &&
               incoming.value->kind == Node::Kind::kMap) {
      const std::string key_path = join_path(path, incoming.key);
      if (incoming.value->entries.empty() && !existing->value->entries.empty()) {
        throw ConfigError(incoming.key_location, key_path, empty_map_refusal(key_path, *existing->value, by));
      }
      // The merged map is reported at the overriding file, the one the user edits last.
      existing->key_location = incoming.key_location;
      existing->value->location = incoming.value->location;
      merge_into(*existing->value, std::move(incoming.value), key_path, by);
    } else {
      existing->key_location = std::move(incoming.key_location);
      existing->value = std::move(incoming.value);
    }
  }
}

std::string echoed(const std::string& text) {
  constexpr std::size_t kWhole = 120, kShown = 100;
  if (text.size() <= kWhole) return text;
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return text.substr(0, cut) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string describe(const Node& node) {
  switch (node.kind) {
    case Node::Kind::kNull: return "an empty value";
    case Node::Kind::kScalar: return "\"" + echoed(node.text) + "\"";
    case Node::Kind::kSequence: return node.items.empty() ? "an empty list" : "a list";
    case Node::Kind::kMap: return node.entries.empty() ? "an empty map" : "a map";
  }
  return "an unknown node";
}

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  std::string out(parent);
  out += '.';
  out += key;
  return out;
}

std::string index_path(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

}  // namespace socsim::config::detail
