#pragma once
// Internal: the lookup and error rules shared by all Section readers, so that every reader
// reports missing keys, wrong node kinds and bad scalars with the same wording.
#include <string>
#include <string_view>

#include "sim/config/config_node.h"

namespace socsim::config::detail {

// `node` itself as a map; throws "expected a map, got a list" for list sections.
const Node& as_map(const Node& node, const std::string& path);

// The value of `key`, or nullptr when absent (the key is then remembered as a did-you-mean
// candidate). Marks the value consumed when found and `consume` is set.
const Node* find_value(const Node& map, std::string_view key, bool consume);

// The consumed value of `key`; throws "missing required key" at the map's location.
const Node& require_value(const Node& map, const std::string& path, std::string_view key);

// `value` as a scalar; throws "expected <what>, got a map" (or a list, or an empty value).
const std::string& scalar_text(const Node& value, const std::string& key_path,
                               std::string_view what);

// "expected <what>, got <value>" at the value's location.
[[noreturn]] void throw_expected(const Node& value, const std::string& key_path,
                                 std::string_view what);

// "must be in [min, max], got <text>".
[[noreturn]] void throw_range(const Node& value, const std::string& key_path,
                              const std::string& min, const std::string& max);

}  // namespace socsim::config::detail
