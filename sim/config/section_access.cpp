#include "sim/config/section_access.h"

#include <algorithm>

namespace socsim::config::detail {

const Node& as_map(const Node& node, const std::string& path) {
  if (node.kind != Node::Kind::kMap) {
    throw ConfigError(node.location, path, "expected a map, got " + describe(node));
  }
  return node;
}

const Node* find_value(const Node& map, std::string_view key, bool consume) {
  const MapEntry* entry = map.find(key);
  if (entry == nullptr) {
    auto& missing = map.requested_missing;
    if (std::find(missing.begin(), missing.end(), key) == missing.end()) {
      missing.emplace_back(key);
    }
    return nullptr;
  }
  if (consume) entry->value->consumed = true;
  return entry->value.get();
}

const Node& require_value(const Node& map, const std::string& path, std::string_view key) {
  const Node* value = find_value(map, key, true);
  if (value == nullptr) {
    throw ConfigError(map.location, join_path(path, key), "missing required key");
  }
  return *value;
}

const std::string& scalar_text(const Node& value, const std::string& key_path,
                               std::string_view what) {
  if (value.kind != Node::Kind::kScalar) throw_expected(value, key_path, what);
  return value.text;
}

void throw_expected(const Node& value, const std::string& key_path, std::string_view what) {
  throw ConfigError(value.location, key_path,
                    "expected " + std::string(what) + ", got " + describe(value));
}

void throw_range(const Node& value, const std::string& key_path, const std::string& min,
                 const std::string& max) {
  throw ConfigError(value.location, key_path,
                    "must be in [" + min + ", " + max + "], got " + echoed(value.text));
}

}  // namespace socsim::config::detail
