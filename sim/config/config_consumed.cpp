// ConfigTree::check_all_consumed: every key in the configuration must have been read by some
// model. A key nobody read is almost always a typo ("peek_bw") or a setting for a model that
// no longer exists, and ignoring it would silently simulate a different SoC than intended.
#include <limits>
#include <string>
#include <tuple>

#include "sim/config/config_node.h"
#include "sim/config/config_tree.h"
#include "sim/config/edit_distance.h"

namespace socsim::config {
namespace {

using detail::MapEntry;
using detail::Node;

constexpr std::size_t kMaxSuggestionDistance = 2;

// "; did you mean 'peak'?" or "". Keys a reader asked for but did not find are the best
// candidates, then keys that were read (the typo is a duplicate of a real setting); ties go to
// the earliest in the document. Other unread keys are never suggested: they are unknown too
// ("zzz: did you mean 'zzzz'?" sent the user from one typo to another).
std::string suggestion(const Node& map, const MapEntry& unknown) {
  using Rank = std::tuple<std::size_t, int>;  // (distance, priority)
  Rank best{std::numeric_limits<std::size_t>::max(), 0};
  const std::string* best_key = nullptr;
  const auto consider = [&](const std::string& candidate, int priority) {
    if (candidate == unknown.key) return;
    const std::size_t distance = detail::edit_distance(unknown.key, candidate);
    // Also require part of the candidate to survive: "a" -> "b" is not a typo of "b".
    if (distance > kMaxSuggestionDistance || distance >= candidate.size()) return;
    const Rank rank{distance, priority};
    if (best_key == nullptr || rank < best) {
      best = rank;
      best_key = &candidate;
    }
  };
  for (const std::string& k : map.requested_missing) consider(k, 0);
  for (const MapEntry& e : map.entries) {
    if (e.value->consumed) consider(e.key, 1);
  }
  if (best_key != nullptr) return "; did you mean '" + *best_key + "'?";
  // No near miss: list what this section does take (the keys some model read or asked for).
  std::string known;
  for (const MapEntry& e : map.entries) {
    if (e.value->consumed) known += (known.empty() ? "" : ", ") + e.key;
  }
  for (const std::string& k : map.requested_missing) known += (known.empty() ? "" : ", ") + k;
  return known.empty() ? std::string() : "; expected one of: " + known;
}

void check_node(const Node& node, const std::string& path);

void check_map(const Node& map, const std::string& path) {
  for (const MapEntry& e : map.entries) {
    const std::string key_path = detail::join_path(path, e.key);
    if (!e.value->consumed) {
      throw ConfigError(e.key_location, key_path, "unknown key" + suggestion(map, e));
    }
    check_node(*e.value, key_path);
  }
}

// Lists are consumed as a whole (number_list) or element by element (at); either way, maps
// inside them must have all their keys read.
void check_node(const Node& node, const std::string& path) {
  if (node.kind == Node::Kind::kMap) {
    check_map(node, path);
  } else if (node.kind == Node::Kind::kSequence) {
    for (std::size_t i = 0; i < node.items.size(); ++i) {
      check_node(*node.items[i], detail::index_path(path, i));
    }
  }
}

}  // namespace

void ConfigTree::check_all_consumed() const { check_node(*root_, ""); }

}  // namespace socsim::config
