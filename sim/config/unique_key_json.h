#pragma once
// JSON parsing that refuses an object holding the same key twice. nlohmann::json keeps the last
// value silently, so a config.json with two "hidden_size" entries (a merge gone wrong, a hand
// edit) would simulate a model nobody wrote down. The JSON standard leaves duplicates to the
// reader; socsim's inputs describe hardware and models, where silence is the worst answer.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace socsim::config {

class DuplicateJsonKey : public std::runtime_error {
 public:
  DuplicateJsonKey(std::string key, int line, int first_line);
  const std::string& key() const { return key_; }
  int line() const { return line_; }              // 1-based line of the repeat; 0 when not found
  int first_line() const { return first_line_; }  // 1-based line of the first; 0 when not found

 private:
  std::string key_;
  int line_;
  int first_line_;
};

// Deeper nesting is refused (nlohmann::json::out_of_range, as a parse failure) while parsing.
inline constexpr int kMaxJsonDepth = 64;

// nlohmann::json::parse(text), plus DuplicateJsonKey when any object repeats a key. Parse errors
// propagate as nlohmann::json::exception, as from json::parse.
nlohmann::json parse_json_unique_keys(std::string_view text);
// The same into an ordered_json (the file's key order kept), in one parse.
nlohmann::ordered_json parse_ordered_json_unique_keys(std::string_view text);

// 1-based line of the n-th (1-based) "key" written as a key (followed by a colon) at or after byte
// `from` of the text; 0 when there is none (or the key is written with escapes): an error about a
// value names its line (a nested key is searched from its object's key: keys are unique in each).
int json_key_line(std::string_view text, const std::string& key, int n = 1, std::size_t from = 0);
// 1-based line of a byte offset of the text (past its end: the last line).
int text_line_of_offset(std::string_view text, std::size_t offset);

// "given twice in one object (line 7; the first at line 3)": the message for an error that
// already names the file and, as its key, e.key().
std::string duplicate_key_message(const DuplicateJsonKey& e);

}  // namespace socsim::config
