#pragma once
// Internal: socsim's own configuration tree. yaml-cpp nodes are converted at load time because
// after include-merging one map mixes entries from several files, and every entry must still
// know its own file:line and whether a reader consumed it.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.h"

namespace socsim::config::detail {

struct Node;

struct MapEntry {
  std::string key;
  SourceLocation key_location;
  std::unique_ptr<Node> value;  // never null
};

struct Node {
  enum class Kind { kNull, kScalar, kSequence, kMap };

  Kind kind = Kind::kNull;
  // Scalars: the scalar itself. Maps, sequences and empty values inside a map: the line of
  // their key, which is where a person looks for "dram:".
  SourceLocation location;
  std::string text;     // kScalar only
  bool quoted = false;  // kScalar written in quotes; kept so dump_yaml round-trips "1.0" as text
  std::vector<std::unique_ptr<Node>> items;  // kSequence; unique_ptr keeps Section handles valid
  std::vector<MapEntry> entries;             // kMap, in document order

  // Reading goes through const Section handles, so bookkeeping is mutable.
  mutable bool consumed = false;
  mutable std::vector<std::string> requested_missing;  // keys asked for but absent (did-you-mean)

  const MapEntry* find(std::string_view key) const;
  MapEntry* find(std::string_view key);
};

std::unique_ptr<Node> make_node(Node::Kind kind, SourceLocation location);

// Deep copy (for YAML aliases). The copy is unconsumed.
std::unique_ptr<Node> clone(const Node& node);

// Layers `overlay` over `base` (both maps): maps merge recursively, everything else replaces.
// Replaced keys keep their position in `base`; new keys are appended, so document order is
// "first place the key appeared". An empty map laid over a map that holds keys is refused: it
// changes nothing, and whoever wrote it meant to clear or replace that map. `path` is the dotted
// path of `base` ("" at the top); `by` says who merges, for the error's explanation and example.
enum class MergeBy { kIncludingFile, kSetOption };
void merge_into(Node& base, std::unique_ptr<Node> overlay, std::string_view path, MergeBy by);

// The refusal's text for an empty map laid over `section` at `key_path`; its example names the
// section's first key (or "<key>" when it has none). One text for both mergers and --set's own check.
std::string empty_map_refusal(std::string_view key_path, const Node& section, MergeBy by);

// A list or map in YAML flow form ("[32, 64]", "{tcm: 8MiB}"; quoted scalars stay quoted), as
// --set reads it back; a scalar's own text. Marks every node inside consumed: the whole value is
// handed on as text.
std::string flow_yaml(const Node& node);

// "a map", "a list", "an empty value", or the quoted scalar text: for "expected X, got Y".
std::string describe(const Node& node);
// A value as an error message shows it: whole up to 120 bytes, else its first 100 and its length
// (a pasted 100,000-digit number was echoed whole, one line of 100 KB).
std::string echoed(const std::string& text);

// Dotted paths used as the key of every error: "dram.peak", "cpu.clusters[1].cores".
std::string join_path(std::string_view parent, std::string_view key);
std::string index_path(std::string_view parent, std::size_t index);

}  // namespace socsim::config::detail
