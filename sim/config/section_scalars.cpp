// Section: plain scalar readers (numbers, integers, booleans, strings, choices, lists).
#include <algorithm>

#include "sim/config/config_tree.h"
#include "sim/config/number_syntax.h"
#include "sim/config/quantity_format.h"
#include "sim/config/section_access.h"

namespace socsim::config {

using detail::Node;

namespace {

double to_number(const Node& value, const std::string& key_path) {
  const auto parsed = detail::parse_double(detail::scalar_text(value, key_path, "a number"));
  if (!parsed) detail::throw_expected(value, key_path, "a number");
  return *parsed;
}

std::int64_t to_integer(const Node& value, const std::string& key_path) {
  const auto parsed = detail::parse_int64(detail::scalar_text(value, key_path, "an integer"));
  if (!parsed) detail::throw_expected(value, key_path, "an integer");
  return *parsed;
}

// Only the two canonical spellings: YAML 1.1's yes/no/on/off are a classic source of surprise.
bool to_boolean(const Node& value, const std::string& key_path) {
  const std::string& text = detail::scalar_text(value, key_path, "true or false");
  if (text == "true") return true;
  if (text == "false") return false;
  detail::throw_expected(value, key_path, "true or false");
}

}  // namespace

double Section::number(std::string_view key) const {
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  return to_number(value, detail::join_path(path_, key));
}

double Section::number(std::string_view key, double min, double max) const {
  const std::string key_path = detail::join_path(path_, key);
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  const double v = to_number(value, key_path);
  if (v < min || v > max) {
    detail::throw_range(value, key_path, detail::format_number(min), detail::format_number(max));
  }
  return v;
}

std::int64_t Section::integer(std::string_view key) const {
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  return to_integer(value, detail::join_path(path_, key));
}

std::int64_t Section::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
  const std::string key_path = detail::join_path(path_, key);
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  const std::int64_t v = to_integer(value, key_path);
  if (v < min || v > max) {
    detail::throw_range(value, key_path, std::to_string(min), std::to_string(max));
  }
  return v;
}

bool Section::boolean(std::string_view key) const {
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  return to_boolean(value, detail::join_path(path_, key));
}

std::string Section::string(std::string_view key) const {
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  return detail::scalar_text(value, detail::join_path(path_, key), "a string");
}

std::string Section::choice(std::string_view key,
                            std::initializer_list<std::string_view> allowed) const {
  const std::string key_path = detail::join_path(path_, key);
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  std::string what = "one of";
  const char* separator = " \"";
  for (std::string_view a : allowed) {
    what += separator;
    what += a;
    what += '"';
    separator = ", \"";
  }
  const std::string& text = detail::scalar_text(value, key_path, what);
  if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
    detail::throw_expected(value, key_path, what);
  }
  return text;
}

std::vector<double> Section::number_list(std::string_view key, std::string_view example) const {
  const std::string key_path = detail::join_path(path_, key);
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  if (value.kind != Node::Kind::kSequence) {
    // The flow form is what --set takes too: --set key=[64,128].
    detail::throw_expected(value, key_path, "a list of numbers such as " + std::string(example));
  }
  std::vector<double> out;
  out.reserve(value.items.size());
  for (std::size_t i = 0; i < value.items.size(); ++i) {
    out.push_back(to_number(*value.items[i], detail::index_path(key_path, i)));
  }
  return out;
}

template <typename TextOf>
std::vector<Section::Scalar> Section::items_of(std::string_view key, TextOf text_of) const {
  const std::string key_path = detail::join_path(path_, key);
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  if (value.kind != Node::Kind::kSequence || value.items.empty()) {
    detail::throw_expected(value, key_path, "a non-empty list of values");
  }
  std::vector<Scalar> out;
  for (std::size_t i = 0; i < value.items.size(); ++i) {
    const Node& item = *value.items[i];
    out.push_back({text_of(item, detail::index_path(key_path, i)), item.location});
  }
  return out;
}

std::vector<Section::Scalar> Section::scalar_list(std::string_view key) const {
  return items_of(key, [](const Node& item, const std::string& item_path) { return detail::scalar_text(item, item_path, "a scalar value"); });
}

std::string Section::value_text(std::string_view key) const {
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  if (value.kind == Node::Kind::kNull) detail::throw_expected(value, detail::join_path(path_, key), "a value");
  return detail::flow_yaml(value);
}

std::vector<Section::Scalar> Section::value_list(std::string_view key) const {
  return items_of(key, [](const Node& item, const std::string& item_path) {
    if (item.kind == Node::Kind::kNull) detail::throw_expected(item, item_path, "a value");
    return detail::flow_yaml(item);
  });
}

double Section::number_or(std::string_view key, double dflt) const {
  const Node* value = detail::find_value(detail::as_map(*node_, path_), key, true);
  return value == nullptr ? dflt : to_number(*value, detail::join_path(path_, key));
}

std::int64_t Section::integer_or(std::string_view key, std::int64_t dflt) const {
  const Node* value = detail::find_value(detail::as_map(*node_, path_), key, true);
  return value == nullptr ? dflt : to_integer(*value, detail::join_path(path_, key));
}

bool Section::boolean_or(std::string_view key, bool dflt) const {
  const Node* value = detail::find_value(detail::as_map(*node_, path_), key, true);
  return value == nullptr ? dflt : to_boolean(*value, detail::join_path(path_, key));
}

std::string Section::string_or(std::string_view key, std::string dflt) const {
  const Node* value = detail::find_value(detail::as_map(*node_, path_), key, true);
  if (value == nullptr) return dflt;
  return detail::scalar_text(*value, detail::join_path(path_, key), "a string");
}

}  // namespace socsim::config
