#pragma once
// Internal: YAML text -> detail::Node tree, driven by yaml-cpp's event parser rather than
// YAML::Load, because only the event stream gives a mark for every key and lets duplicate keys
// be rejected (YAML::Load silently keeps one of them).
#include <memory>
#include <string>
#include <string_view>

#include "sim/config/config_node.h"

namespace socsim::config::detail {

struct ReadOptions {
  std::string file_name;         // recorded in every SourceLocation
  bool record_positions = true;  // false for --set values: they have no line to point at
};

// Parses one YAML document. Returns nullptr for an empty document. Throws ConfigError for
// syntax errors (1-based line from yaml-cpp's mark), duplicate keys, non-scalar keys, unknown
// aliases and multiple documents.
std::unique_ptr<Node> read_yaml(std::string_view text, const ReadOptions& options);

}  // namespace socsim::config::detail
