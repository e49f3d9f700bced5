#include "sim/validation/metric_path.h"

#include <charconv>
#include <cmath>
#include <cstddef>

namespace socsim::validation {

namespace {

using Json = nlohmann::ordered_json;

// "in 'units'" for a nested level, "at the top level" for the root.
std::string where(const std::string& reached) {
  return reached.empty() ? "at the top level" : "in '" + reached + "'";
}

std::string key_list(const Json& object) {
  if (object.empty()) return "none";
  std::string keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys += (keys.empty() ? "" : ", ") + it.key();
  return keys;
}

// What a level holds, for "got ..." and "(...)": lists and objects are described, not dumped,
// since a whole report would drown the message.
std::string describe(const Json& level) {
  if (level.is_object()) return "an object; available: " + key_list(level);
  if (level.is_array()) return "a list of " + std::to_string(level.size()) + " entries";
  if (level.is_null()) return "null (no value)";
  return "the " + std::string(level.type_name()) + " " + level.dump();
}

const Json* step(const Json& level, const std::string& segment) {
  if (level.is_object()) {
    const auto it = level.find(segment);
    return it == level.end() ? nullptr : &*it;
  }
  if (level.is_array()) {
    std::size_t index = 0;
    const char* end = segment.data() + segment.size();
    const auto [ptr, ec] = std::from_chars(segment.data(), end, index);
    if (ec != std::errc() || ptr != end || index >= level.size()) return nullptr;
    return &level[index];
  }
  return nullptr;
}

}  // namespace

double lookup_metric(const Json& result, const std::string& path) {
  const Json* level = &result;
  std::string reached;  // the dotted prefix resolved so far
  std::size_t begin = 0;
  while (begin <= path.size()) {
    std::size_t end = path.find('.', begin);
    if (end == std::string::npos) end = path.size();
    const std::string segment = path.substr(begin, end - begin);
    const Json* next = step(*level, segment);
    if (next == nullptr) {
      const std::string what = level->is_object() ? "available: " + key_list(*level) : "it holds " + describe(*level);
      throw MetricError("metric '" + path + "': no '" + segment + "' " + where(reached) + " (" + what + ")");
    }
    level = next;
    reached += (reached.empty() ? "" : ".") + segment;
    begin = end + 1;
  }
  if (!level->is_number()) {
    throw MetricError("metric '" + path + "' is not a number (got " + describe(*level) + ")");
  }
  const double v = level->get<double>();
  if (!std::isfinite(v)) throw MetricError("metric '" + path + "' is not finite");
  return v;
}

}  // namespace socsim::validation
