// ConfigTree::apply_override: command-line "--set a.b.c=value". Overrides are the last layer
// (after includes), and every node they create or replace is located at "--set" so errors on
// them point at the command line rather than at a file line the user never wrote.
#include <spdlog/spdlog.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/config_node.h"
#include "sim/config/config_tree.h"
#include "sim/config/number_syntax.h"
#include "sim/config/yaml_reader.h"

namespace socsim::config {
namespace {

using detail::MapEntry;
using detail::Node;

const SourceLocation kSetLocation{std::string(kCommandLineSetFile), 0, 0};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_path(std::string_view key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    parts.emplace_back(key.substr(start, dot == std::string_view::npos ? key.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

// The slot a path component names: a map entry (created if absent) or a list element by index.
std::unique_ptr<Node>& slot(Node& parent, const std::string& component, const std::string& path,
                            const std::string& full_key, std::string* child_path) {
  if (parent.kind == Node::Kind::kSequence) {
    const auto index = detail::parse_int64(component);
    if (!index || *index < 0 || static_cast<std::size_t>(*index) >= parent.items.size()) {
      throw ConfigError(kSetLocation, full_key,
                        "\"" + path + "\" is a list of " + std::to_string(parent.items.size()) +
                            " entries; \"" + component + "\" is not a valid index");
    }
    *child_path = detail::index_path(path, static_cast<std::size_t>(*index));
    return parent.items[static_cast<std::size_t>(*index)];
  }
  if (parent.kind != Node::Kind::kMap) {
    throw ConfigError(kSetLocation, full_key,
                      "cannot set a key inside \"" + path + "\", which is " +
                          detail::describe(parent) + ", not a map");
  }
  *child_path = detail::join_path(path, component);
  if (MapEntry* entry = parent.find(component)) return entry->value;
  parent.entries.push_back(
      MapEntry{component, kSetLocation, detail::make_node(Node::Kind::kMap, kSetLocation)});
  return parent.entries.back().value;
}

// A value the YAML reader refused, when it is a flow list or map (it starts with a bracket) with
// an unbalanced bracket outside quotes: said as such (the reader's own message for `[1,2` was
// "map keys must be scalars"). Only a refused value is looked at, so what YAML takes (a comment,
// 'it''s', a tag before a quote) is never refused here.
void check_brackets(std::string_view text, const std::string& full_key) {
  const std::string_view flow = trim(text);
  if (flow.empty() || (flow.front() != '[' && flow.front() != '{')) return;
  std::string open;  // the brackets still open, innermost last
  char quote = 0;
  bool escaped = false;  // the character after a backslash in a double-quoted string
  char prev = 0;         // the last character outside quotes that is not a space
  for (const char c : flow) {
    if (quote != 0) {
      if (escaped) {
        escaped = false;
      } else if (quote == '"' && c == '\\') {
        escaped = true;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    const char before = prev;
    if (c != ' ' && c != '\t') prev = c;
    if ((c == '\'' || c == '"') && std::string_view("[{,:").find(before) != std::string_view::npos) {
      quote = c;  // a quoted scalar starts only where a value starts (it's is a plain one)
    } else if (c == '[' || c == '{') {
      open += c;
    } else if (c == ']' || c == '}') {
      const char want = c == ']' ? '[' : '{';
      if (open.empty()) {
        throw ConfigError(kSetLocation, full_key, std::string("invalid value: a '") + c + "' that closes no '" + want + "' (a list is written [1, 2], a map {key: value})");
      }
      if (open.back() != want) {
        throw ConfigError(kSetLocation, full_key, std::string("invalid value: a '") + c + "' inside an open '" + open.back() + "' (it needs its '" +
                                                      (open.back() == '[' ? ']' : '}') + "' first; a list is written [1, 2], a map {key: value})");
      }
      open.pop_back();
    }
  }
  if (quote != 0) return;  // an unclosed quote: the YAML reader says so
  if (!open.empty()) {
    throw ConfigError(kSetLocation, full_key, std::string("invalid value: an unclosed '") + open.back() + "' (a list is written [1, 2], a map {key: value})");
  }
}

std::unique_ptr<Node> parse_value(std::string_view text, const std::string& full_key) {
  std::unique_ptr<Node> value;
  try {
    value = detail::read_yaml(text, detail::ReadOptions{kSetLocation.file, false});
  } catch (const ConfigError& e) {
    check_brackets(text, full_key);
    throw ConfigError(kSetLocation, full_key, "invalid value: " + e.message());
  }
  if (value == nullptr) value = detail::make_node(Node::Kind::kNull, kSetLocation);
  return value;
}

// A value inside a --set map as it reads: a scalar's text, a list of scalars in flow form.
std::string flow_text(const Node& v) {
  if (v.kind == Node::Kind::kScalar) return v.text;
  if (v.kind != Node::Kind::kSequence || v.items.empty()) return detail::describe(v);
  std::string t = "[";
  for (const auto& item : v.items) {
    if (item->kind != Node::Kind::kScalar) return detail::describe(v);
    t += (t.size() > 1 ? ", " : "") + item->text;
  }
  return t + "]";
}

// The settings one --set value makes: the path itself for a scalar, a list or nothing, each key
// of a map (recursively). `given` is the whole value as written; a map's keys show their own.
// (An empty map inside a map value merges nothing: no setting.)
void set_leaves(const Node& value, const std::string& path, const std::string& given, std::vector<std::pair<std::string, std::string>>& out) {
  if (value.kind != Node::Kind::kMap || value.entries.empty()) {
    out.emplace_back(path, detail::echoed(given));
    return;
  }
  for (const auto& e : value.entries) {
    const Node& v = *e.value;
    if (v.kind == Node::Kind::kMap && v.entries.empty()) continue;
    set_leaves(v, detail::join_path(path, e.key), flow_text(v), out);
  }
}

// Whether two settings touch one value: the same path, or one inside the other (a list and its
// entry, a section and its key).
bool same_or_nested(const std::string& a, const std::string& b) {
  const auto inside = [](const std::string& outer, const std::string& inner) {
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && (inner[outer.size()] == '.' || inner[outer.size()] == '[');
  };
  return a == b || inside(a, b) || inside(b, a);
}

}  // namespace

void ConfigTree::apply_override(std::string_view assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw ConfigError(kSetLocation, "",
                      "expected key=value, got \"" + detail::echoed(std::string(assignment)) + "\"");
  }
  const std::string full_key(trim(assignment.substr(0, eq)));
  if (full_key.empty()) {
    throw ConfigError(kSetLocation, "",
                      "missing key before '=' in \"" + std::string(assignment) + "\"");
  }
  const std::vector<std::string> parts = split_path(full_key);
  for (const std::string& part : parts) {
    if (part.empty()) throw ConfigError(kSetLocation, full_key, "empty path component");
  }
  // Parse first: a malformed value must not leave half-created maps behind.
  std::unique_ptr<Node> value = parse_value(assignment.substr(eq + 1), full_key);
  Node* parent = root_.get();
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    std::string child_path;
    parent = slot(*parent, parts[i], path, full_key, &child_path).get();
    path = std::move(child_path);
  }
  std::string child_path;
  // (slot() makes a missing key; an empty map on it is refused below only when the key existed:
  // otherwise the key's own check says what is wrong with it, "unknown key; did you mean ...")
  const bool existed = parent->kind != Node::Kind::kMap || parent->find(parts.back()) != nullptr;
  std::unique_ptr<Node>& target = slot(*parent, parts.back(), path, full_key, &child_path);
  // Twice the same setting, by the path it resolved to (a list index spelled 0 or 00 is one), in
  // whichever spelling (npu.tcm=1MiB, then npu={tcm: 8MiB}; a list, then one of its entries):
  // layered settings (a script's defaults, then the user's) are a way of working, so the later
  // one holds, and the console says so rather than keep it silent. Two maps merged into one
  // section set different keys: not twice.
  std::vector<std::pair<std::string, std::string>> leaves;  // (resolved path, value as given)
  set_leaves(*value, child_path, std::string(trim(assignment.substr(eq + 1))), leaves);
  // An empty map merged into a section that exists changes nothing: refused below, not warned of.
  const bool refused_empty = target->kind == Node::Kind::kMap && value->kind == Node::Kind::kMap && value->entries.empty() && existed;
  for (auto& [leaf, given] : leaves) {
    if (refused_empty) break;
    bool warned = false;
    for (auto it = overridden_.begin(); it != overridden_.end();) {
      if (!same_or_nested(it->first, leaf)) {
        ++it;
        continue;
      }
      if (!warned) {
        const std::string before = it->first == leaf ? it->second : it->first + "=" + it->second;
        spdlog::warn("--set {} given twice ({}, then {}): the later one, {}, is used", leaf, before, given, given);
        warned = true;
      }
      // A setting the new one lies inside (a list, then its entry) still holds its other parts.
      const bool still_holds = it->first != leaf && leaf.compare(0, it->first.size(), it->first) == 0;
      it = still_holds ? std::next(it) : overridden_.erase(it);
    }
    overridden_.insert_or_assign(std::move(leaf), std::move(given));
  }
  if (target->kind == Node::Kind::kMap && value->kind == Node::Kind::kMap) {
    // An empty map merged in changes nothing; a user who wrote it meant to clear or replace the
    // section, which --set does not do (it merged in silence).
    if (value->entries.empty() && existed) {
      throw ConfigError(kSetLocation, full_key, detail::empty_map_refusal(full_key, *target, detail::MergeBy::kSetOption));
    }
    // Same rule as includes: "--set dram={peak: 1 GB/s}" keeps dram's other keys.
    detail::merge_into(*target, std::move(value), full_key, detail::MergeBy::kSetOption);
    target->location = kSetLocation;
  } else {
    target = std::move(value);
  }
  if (parent->kind == Node::Kind::kMap) parent->find(parts.back())->key_location = kSetLocation;
}

}  // namespace socsim::config
