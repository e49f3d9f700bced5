#include "sim/config/unique_key_json.h"

#include <algorithm>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

namespace socsim::config {

DuplicateJsonKey::DuplicateJsonKey(std::string key, int line, int first_line)
    : std::runtime_error("duplicate JSON key \"" + key + "\""), key_(std::move(key)), line_(line), first_line_(first_line) {}

namespace {

// One parse with the checks, into either kind of JSON value (ordered keeps the file's key order).
template <class json>
json parse_unique(std::string_view text) {
  // Per open object: its keys so far, each with its occurrence number among all keys of that name.
  std::vector<std::map<std::string, int>> open;
  std::map<std::string, int> occurrences;
  const typename json::parser_callback_t check = [&](int depth, typename json::parse_event_t event, json& parsed) {
    // Every file socsim reads nests a few levels; millions of '{' would build millions of nodes
    // before any check saw them (a 96 MB header took 4.8 GB).
    if (depth > kMaxJsonDepth) {
      throw nlohmann::json::out_of_range::create(406, "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep", nullptr);
    }
    switch (event) {
      case json::parse_event_t::object_start:
        open.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!open.empty()) open.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string k = parsed.template get<std::string>();
        const int n = ++occurrences[k];
        if (open.empty()) break;  // not reachable for valid JSON; the parser reports the error
        const auto [it, fresh] = open.back().emplace(k, n);
        if (!fresh) throw DuplicateJsonKey(k, json_key_line(text, k, n), json_key_line(text, k, it->second));
        break;
      }
      default:
        break;
    }
    return true;
  };
  return json::parse(text, check);
}

}  // namespace

nlohmann::json parse_json_unique_keys(std::string_view text) { return parse_unique<nlohmann::json>(text); }
nlohmann::ordered_json parse_ordered_json_unique_keys(std::string_view text) { return parse_unique<nlohmann::ordered_json>(text); }

std::string duplicate_key_message(const DuplicateJsonKey& e) {
  std::string s = "given twice in one object";
  if (e.line() > 0 && e.first_line() > 0) {
    s += " (line " + std::to_string(e.line()) + "; the first at line " + std::to_string(e.first_line()) + ")";
  }
  return s + "; JSON readers disagree on which one counts, so socsim refuses the file";
}

// Textual occurrences of "key" used as a key (followed by optional whitespace and a colon). The
// parser reports keys in text order, so the n-th key event named k is the n-th such occurrence.
int json_key_line(std::string_view text, const std::string& key, int n, std::size_t from) {
  const std::string quoted = "\"" + key + "\"";
  std::size_t pos = from;
  while ((pos = text.find(quoted, pos)) != std::string_view::npos) {
    std::size_t after = pos + quoted.size();
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t' || text[after] == '\n' || text[after] == '\r')) ++after;
    const bool is_key = after < text.size() && text[after] == ':' && (pos == 0 || text[pos - 1] != '\\');
    if (is_key && --n == 0) return text_line_of_offset(text, pos);
    pos += quoted.size();
  }
  return 0;
}

int text_line_of_offset(std::string_view text, std::size_t offset) {
  const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), end, '\n'));
}

}  // namespace socsim::config
