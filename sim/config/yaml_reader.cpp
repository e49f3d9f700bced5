#include "sim/config/yaml_reader.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <map>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>
#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "sim/config/utf8_text.h"

namespace socsim::config::detail {
namespace {

// Nodes one file may expand to, aliases included: SoC, model and workload files hold hundreds;
// a few hundred bytes of nested aliases (an "alias bomb") ask for billions, which would take the
// host's memory and minutes of copying before any check ran.
constexpr std::uint64_t kMaxNodes = 1'000'000;
// ... and text (scalars and keys, copies included): a long scalar behind a few levels of aliases
// multiplies bytes, not nodes.
constexpr std::uint64_t kMaxTextBytes = 64ull << 20;

// The line a quoted scalar opening at `pos` (its quote character) closes on, counted from the
// line it opens on: 0 when it closes there. A quote left open swallows what follows as the value
// (`name: "abc` then `npu: {tcm: 1 KiB}`: the TCM setting would vanish into the name), and YAML
// lets a quoted scalar run over lines, so yaml-cpp accepts it. socsim's files never need a quoted
// value over several lines: one that does is taken for a quote left open.
std::size_t quoted_scalar_extra_lines(std::string_view text, std::size_t pos) {
  // The mark may sit on the scalar's properties (`&anchor`, `!!str`) before its quote.
  while (pos < text.size() && (text[pos] == '&' || text[pos] == '!')) {
    while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t' && text[pos] != '\n') ++pos;
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  }
  if (pos >= text.size() || (text[pos] != '"' && text[pos] != '\'')) return 0;
  const char quote = text[pos];
  std::size_t lines = 0;
  for (std::size_t i = pos + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++lines;
    if (quote == '"' && c == '\\') {
      ++i;  // an escaped character (\" included)
      if (i < text.size() && text[i] == '\n') ++lines;
      continue;
    }
    if (c == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is a quote inside a single-quoted scalar
        continue;
      }
      return lines;
    }
  }
  return lines;
}

class TreeBuilder : public YAML::EventHandler {
 public:
  TreeBuilder(const ReadOptions& options, std::string_view text) : options_(options), text_(text) {}

  std::unique_ptr<Node> take_root() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      throw ConfigError(location(mark), "",
                        "multiple YAML documents in one file are not supported");
    }
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (expecting_key()) throw ConfigError(location(mark), path(), "map keys must not be empty");
    const std::uint64_t first = add_nodes(1, mark);
    finish(attach(make_node(Node::Kind::kNull, location(mark))), anchor, first, last_bytes_);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (tag == "!" && !mark.is_null() && mark.pos >= 0) {
      if (const std::size_t extra = quoted_scalar_extra_lines(text_, static_cast<std::size_t>(mark.pos)); extra > 0) {
        throw ConfigError(location(mark), expecting_key() ? path() : join_path(path(), stack_.empty() ? "" : stack_.back().key),
                          "a quote opened here is not closed on its line (the value would run over " + std::to_string(extra) +
                              " more line(s) and take in what they hold); close it, or write the value on one line");
      }
    }
    if (expecting_key()) {
      // A merge key would be an unknown key "<<" when its map has others, and hide what it brings
      // when its map needs one of them ("clock: missing required key"): said as itself.
      if (value == "<<" && tag != "!") {
        throw ConfigError(location(mark), join_path(path(), "<<"), "YAML merge keys are not supported: write the keys out in this map");
      }
      add_nodes(0, mark, value.size());
      if (anchor != YAML::NullAnchor) {
        // An anchored key (`&k name: x`): its alias is that text, as a key or a value (it was
        // "unknown alias"). Keys are not nodes of the tree, so the anchor keeps its own.
        auto key = make_node(Node::Kind::kScalar, location(mark));
        key->text = value;
        key->quoted = tag == "!";
        anchors_[anchor] = key.get();
        anchor_sizes_[anchor] = 1;
        anchor_bytes_[anchor] = value.size();
        anchored_keys_.push_back(std::move(key));
      }
      take_key(value, location(mark));
      return;
    }
    const std::uint64_t first = add_nodes(1, mark, value.size());
    auto node = make_node(Node::Kind::kScalar, location(mark));
    node->text = value;
    node->quoted = tag == "!";  // yaml-cpp tags quoted scalars "!" and plain ones "?"
    finish(attach(std::move(node)), anchor, first, last_bytes_);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw ConfigError(location(mark), path(), "unknown alias");
    aliases_ = true;
    if (expecting_key()) {
      if (it->second->kind != Node::Kind::kScalar) {
        throw ConfigError(location(mark), path(), "map keys must be scalars");
      }
      add_nodes(0, mark, it->second->text.size());
      take_key(it->second->text, location(mark));
      return;
    }
    add_nodes(anchor_sizes_.at(anchor), mark, anchor_bytes_.at(anchor));
    auto copy = clone(*it->second);
    copy->location = location(mark);
    attach(std::move(copy));
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(Node::Kind::kSequence, mark, anchor);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(Node::Kind::kMap, mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    Node* node;
    std::string path;
    YAML::anchor_t anchor;
    std::uint64_t first_node;   // nodes before this container's own
    std::uint64_t first_bytes;  // text bytes before this container's own
    bool has_key = false;
    std::string key;
    SourceLocation key_location;
    // A map's keys so far and the line of each: a duplicate is found without a walk over the
    // entries (a file of 10^5 keys took seconds, 10^6 minutes).
    std::unordered_map<std::string, int> key_lines;
  };

  SourceLocation location(const YAML::Mark& mark) const {
    if (!options_.record_positions || mark.is_null()) return {options_.file_name, 0, 0};
    return {options_.file_name, mark.line + 1, mark.column + 1};  // yaml-cpp marks are 0-based
  }

  std::string path() const { return stack_.empty() ? std::string() : stack_.back().path; }

  bool expecting_key() const {
    return !stack_.empty() && stack_.back().node->kind == Node::Kind::kMap &&
           !stack_.back().has_key;
  }

  void take_key(const std::string& key, SourceLocation loc) {
    Frame& top = stack_.back();
    if (const auto first = top.key_lines.find(key); first != top.key_lines.end()) {
      std::string msg = "duplicate key";
      if (first->second > 0) msg += " (first defined at line " + std::to_string(first->second) + ")";
      throw ConfigError(std::move(loc), join_path(top.path, key), msg);
    }
    top.has_key = true;
    top.key = key;
    top.key_location = std::move(loc);
  }

  // Places `node` in the current container; returns it and the dotted path it lives at.
  std::pair<Node*, std::string> attach(std::unique_ptr<Node> node) {
    Node* raw = node.get();
    if (stack_.empty()) {
      root_ = std::move(node);
      return {raw, ""};
    }
    Frame& top = stack_.back();
    if (top.node->kind == Node::Kind::kSequence) {
      std::string p = index_path(top.path, top.node->items.size());
      top.node->items.push_back(std::move(node));
      return {raw, std::move(p)};
    }
    if (!top.has_key) throw ConfigError(raw->location, top.path, "map keys must be scalars");
    // Containers and empty values are reported at their key: see Node::location.
    if (raw->kind != Node::Kind::kScalar) raw->location = top.key_location;
    std::string p = join_path(top.path, top.key);
    top.key_lines.emplace(top.key, top.key_location.line);
    top.node->entries.push_back(MapEntry{std::move(top.key), top.key_location, std::move(node)});
    top.has_key = false;
    return {raw, std::move(p)};
  }

  // Counts `n` more nodes and `bytes` more text against the bounds; returns the node count before
  // them (the text count before them is left in last_bytes_).
  std::uint64_t add_nodes(std::uint64_t n, const YAML::Mark& mark, std::uint64_t bytes = 0) {
    const std::uint64_t before = nodes_;
    if (n > kMaxNodes - nodes_) {
      throw ConfigError(location(mark), path(),
                        "the file expands to more than " + std::to_string(kMaxNodes) + " nodes (" +
                            (aliases_ ? "nested aliases multiply their anchors' contents" : "values, keys, lists and maps; a list of values is one each") +
                            "); a configuration needs far fewer");
    }
    if (bytes > kMaxTextBytes - bytes_) {
      throw ConfigError(location(mark), path(),
                        "the file expands to more than " + std::to_string(kMaxTextBytes >> 20) +
                            " MiB of text (its own and the copies its aliases make); a configuration needs far less");
    }
    nodes_ += n;
    last_bytes_ = bytes_;
    bytes_ += bytes;
    return before;
  }

  // `first` / `first_bytes`: the node and text counts before the finished node's own (its subtree
  // is what came since).
  void finish(std::pair<Node*, std::string> placed, YAML::anchor_t anchor, std::uint64_t first, std::uint64_t first_bytes) {
    if (anchor == YAML::NullAnchor) return;
    anchors_[anchor] = placed.first;
    anchor_sizes_[anchor] = nodes_ - first;
    anchor_bytes_[anchor] = bytes_ - first_bytes;
  }

  void open(Node::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    const std::uint64_t first = add_nodes(1, mark);
    auto placed = attach(make_node(kind, location(mark)));
    stack_.push_back(Frame{placed.first, std::move(placed.second), anchor, first, last_bytes_, false, {}, {}, {}});
  }

  void close() {
    // Anchors become usable once complete; an alias inside its own anchor is rejected above.
    finish({stack_.back().node, stack_.back().path}, stack_.back().anchor, stack_.back().first_node, stack_.back().first_bytes);
    stack_.pop_back();
  }

  const ReadOptions& options_;
  std::string_view text_;  // the document: quoted scalars are checked against it
  std::unique_ptr<Node> root_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, const Node*> anchors_;
  std::map<YAML::anchor_t, std::uint64_t> anchor_sizes_;  // nodes of each anchor's subtree
  std::map<YAML::anchor_t, std::uint64_t> anchor_bytes_;  // and its text
  std::vector<std::unique_ptr<Node>> anchored_keys_;        // the scalars anchored keys stand for
  std::uint64_t nodes_ = 0, bytes_ = 0, last_bytes_ = 0;
  bool aliases_ = false;  // whether an alias was read (the bound's message says what grew)
  int documents_ = 0;
};

// 1-based line and column of a byte offset.
SourceLocation location_of_offset(const ReadOptions& options, std::string_view text, std::size_t offset) {
  SourceLocation loc{options.file_name, 0, 0};
  if (!options.record_positions) return loc;
  const std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  loc.line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  loc.column = 1 + static_cast<int>(offset - (line_start == std::string_view::npos || offset == 0 ? 0 : line_start + 1));
  return loc;
}

// The text of 1-based line `line` (empty past the end).
std::string_view line_text(std::string_view text, int line) {
  std::size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  const std::size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

// yaml-cpp's words for a tab in indentation ("illegal map value", ...) do not name the tab: the
// hint is added when the line it stops at is indented with one (only that line: a tab inside a
// block scalar or a flow list above it is legal YAML).
std::string tab_hint(std::string_view text, int line) {
  if (line < 1) return "";
  const auto row = line_text(text, line);
  const auto first = row.find_first_not_of(" \t");
  if (first == std::string_view::npos || row.substr(0, first).find('\t') == std::string_view::npos) return "";
  return " (line " + std::to_string(line) + " is indented with a tab; YAML indents with spaces only)";
}

}  // namespace

std::unique_ptr<Node> read_yaml(std::string_view text, const ReadOptions& options) {
  // A UTF-8 byte order mark: yaml-cpp skips it but does not count it in its marks' positions,
  // which the quoted-scalar check reads the text at.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (text.size() > kMaxTextBytes) {
    throw ConfigError({options.file_name, 0, 0}, "",
                      "holds " + std::to_string(text.size() >> 20) + " MiB of text, more than the " + std::to_string(kMaxTextBytes >> 20) +
                          " MiB a configuration may have");
  }
  // UTF-16 and UTF-32 (byte order marks yaml-cpp detects) are left to yaml-cpp.
  const bool wide = text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF" || (text.size() >= 2 && (text[0] == '\0' || text[1] == '\0'));
  if (const auto bad = wide ? std::nullopt : first_non_utf8(text)) {
    throw ConfigError(location_of_offset(options, text, *bad), "",
                      fmt::format("byte 0x{:02x} is not UTF-8 text (configuration text is UTF-8)", static_cast<unsigned char>(text[*bad])));
  }
  // Control bytes (NUL, ESC, DEL...) are not YAML text anywhere, quoted or not; yaml-cpp read a NUL
  // as "unknown escape character" and took others into the value ("expected an integer, got "1"").
  if (!wide) {
    const auto control = std::find_if(text.begin(), text.end(), [](char c) {
      const auto b = static_cast<unsigned char>(c);
      return (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f;
    });
    if (control != text.end()) {
      const auto at = static_cast<std::size_t>(control - text.begin());
      throw ConfigError(location_of_offset(options, text, at), "",
                        fmt::format("byte 0x{:02x} is a control character, which YAML text may not hold (is this a binary file?)",
                                    static_cast<unsigned char>(*control)));
    }
    // A carriage return that ends a line by itself (classic Mac OS text): yaml-cpp does not break
    // lines there, so a file of them read as its first line (a comment: "got an empty file").
    for (std::size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1)) {
      if (at + 1 < text.size() && text[at + 1] == '\n') continue;
      if (text.find_first_not_of(" \t\r", at) == std::string_view::npos) break;  // only blanks follow
      throw ConfigError(location_of_offset(options, text, at), "",
                        "a line ends with a carriage return alone (classic Mac OS line endings, or CR CR LF from a file converted "
                        "twice); end lines with LF or CRLF");
    }
  }
  std::istringstream in{std::string(text)};
  TreeBuilder builder(options, text);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's message for this is "bad file".
    SourceLocation loc{options.file_name, 0, 0};
    if (options.record_positions && !e.mark.is_null()) loc.line = e.mark.line + 1, loc.column = e.mark.column + 1;
    throw ConfigError(std::move(loc), "", "nests more than " + std::to_string(e.depth() - 1) + " levels of maps and lists (YAML reader's limit); a configuration needs a few");
  } catch (const YAML::Exception& e) {
    SourceLocation loc{options.file_name, 0, 0};
    if (options.record_positions && !e.mark.is_null()) {
      loc.line = e.mark.line + 1;
      loc.column = e.mark.column + 1;
    }
    throw ConfigError(std::move(loc), "", e.msg + (e.msg.find("tab") == std::string::npos ? tab_hint(text, loc.line) : ""));
  }
  return builder.take_root();
}

}  // namespace socsim::config::detail
