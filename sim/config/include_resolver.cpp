#include "sim/config/include_resolver.h"
#include "sim/config/input_file.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "sim/config/yaml_reader.h"

namespace socsim::config::detail {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kIncludeKey = "include";
// Bytes of one configuration file: SoC, model and workload files hold kilobytes. The YAML reader
// has the same bound on text (aliases included).
constexpr std::uintmax_t kMaxConfigBytes = 64ull << 20;
// Files one document loads through its includes, counting a file each time it is met: a tree that
// names a file twice at each of 30 levels loads it 2^30 times (it hung, its memory growing, with
// no word). Real configurations load a handful; the bytes of all of them share kMaxConfigBytes.
constexpr std::size_t kMaxIncludedFiles = 256;
// Nodes of all files together (each file alone is held to the YAML reader's bound, a million): a
// few hundred small alias bombs, included, would otherwise hold hundreds of millions.
constexpr std::uint64_t kMaxIncludedNodes = 2'000'000;

std::uint64_t count_nodes(const Node& n) {
  std::uint64_t c = 1;
  for (const auto& item : n.items) c += count_nodes(*item);
  for (const auto& e : n.entries) c += count_nodes(*e.value);
  return c;
}

// The file names listed by an `include:` value: one string or a list of strings.
std::vector<const Node*> include_names(const MapEntry& entry) {
  const Node& value = *entry.value;
  if (value.kind == Node::Kind::kScalar) return {&value};
  std::vector<const Node*> names;
  if (value.kind == Node::Kind::kSequence) {
    for (const auto& item : value.items) {
      if (item->kind != Node::Kind::kScalar) {
        throw ConfigError(item->location, std::string(kIncludeKey),
                          "expected a file name, got " + describe(*item));
      }
      names.push_back(item.get());
    }
    return names;
  }
  throw ConfigError(value.location, std::string(kIncludeKey),
                    "expected a file name or a list of file names, got " + describe(value));
}

// Identity of a file for cycle detection, independent of how the path was spelled.
fs::path identity(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path.lexically_normal() : canonical;
}

// "character device", "pipe", ... for a file that is neither a regular file nor a folder (read_text_file
// refuses those: /dev/zero would never end); "" otherwise. strerror's "Invalid argument" said nothing.
std::string special_file_kind(const fs::path& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec) return "";
  switch (st.type()) {
    case fs::file_type::character: return "character device";
    case fs::file_type::block: return "block device";
    case fs::file_type::fifo: return "pipe";
    case fs::file_type::socket: return "socket";
    default: return "";
  }
}

}  // namespace

std::optional<std::string> read_text_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    // errno says why, for the caller's message (errno_reason): a folder, no such file, or another
    // kind of file.
    if (ec) {  // the file system's own reason (a name too long, a permission on the way)
      errno = ec.value();
      return std::nullopt;
    }
    errno = fs::is_directory(path, ec) ? EISDIR : fs::exists(path, ec) ? EINVAL : ENOENT;
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return buffer.str();
}

std::unique_ptr<Node> IncludeResolver::load_file(const fs::path& path,
                                                 const SourceLocation* included_from) {
  const std::string name = path.string();
  const fs::path id = identity(path);
  const auto seen = std::find(chain_.begin(), chain_.end(), id);
  if (seen != chain_.end()) {
    std::string cycle = "include cycle: ";
    for (auto i = static_cast<std::size_t>(seen - chain_.begin()); i < chain_names_.size(); ++i) {
      cycle += chain_names_[i] + " -> ";
    }
    cycle += name;
    throw ConfigError(included_from != nullptr ? *included_from : SourceLocation{name, 0, 0},
                      std::string(kIncludeKey), cycle);
  }

  // A file far past what a configuration holds is refused before it is read into memory (a
  // folder or a device is left to read_text_file's errno, said below).
  // (The error_code form: a name the file system refuses, e.g. a component past NAME_MAX, threw
  // std::filesystem::filesystem_error here, found by fuzz_soc_yaml; it is read_text_file's error.)
  std::error_code regular_ec;
  if (fs::is_regular_file(path, regular_ec)) {
    if (const auto why = input_file_problem(path, {"a configuration", kMaxConfigBytes, false})) {
      if (included_from == nullptr) throw ConfigError({name, 0, 0}, "", *why);
      throw ConfigError(*included_from, std::string(kIncludeKey), "\"" + name + "\" " + *why);
    }
  }
  if (included_from != nullptr && files_.size() >= kMaxIncludedFiles) {
    throw ConfigError(*included_from, std::string(kIncludeKey),
                      "\"" + name + "\" would be the " + std::to_string(files_.size() + 1) + "th file this configuration loads (at most " +
                          std::to_string(kMaxIncludedFiles) + "; a file included twice is loaded twice): include each file once");
  }
  files_.push_back(path);
  const auto text = read_text_file(path);
  if (!text) {
    const std::string why = special_file_kind(path).empty() ? errno_reason() : " (a " + special_file_kind(path) + ", not a regular file: socsim reads its inputs from files)";
    if (included_from == nullptr) throw ConfigError({name, 0, 0}, "", "cannot open file" + why);
    // Point at the include line: that is what the user has to fix.
    throw ConfigError(*included_from, std::string(kIncludeKey),
                      "cannot open file \"" + name + "\"" + why);
  }

  bytes_read_ += text->size();
  if (bytes_read_ > kMaxConfigBytes) {
    const std::string why = "the configuration and its includes hold more than " + std::to_string(kMaxConfigBytes >> 20) + " MiB";
    if (included_from == nullptr) throw ConfigError({name, 0, 0}, "", why);
    throw ConfigError(*included_from, std::string(kIncludeKey), "\"" + name + "\": " + why);
  }
  chain_.push_back(id);
  chain_names_.push_back(name);
  auto document = read_yaml(*text, ReadOptions{name, true});
  nodes_read_ += document ? count_nodes(*document) : 0;
  if (nodes_read_ > kMaxIncludedNodes) {
    const std::string why = "the configuration and its includes expand to more than " + std::to_string(kMaxIncludedNodes) + " nodes";
    if (included_from == nullptr) throw ConfigError({name, 0, 0}, "", why);
    throw ConfigError(*included_from, std::string(kIncludeKey), "\"" + name + "\": " + why);
  }
  auto resolved = resolve(std::move(document), name, path.parent_path());
  chain_.pop_back();
  chain_names_.pop_back();
  return resolved;
}

std::unique_ptr<Node> IncludeResolver::resolve(std::unique_ptr<Node> document,
                                               const std::string& file_name,
                                               const fs::path& base_dir) {
  if (document == nullptr) {
    throw ConfigError({file_name, 0, 0}, "", "expected a map at the top level, got an empty file");
  }
  if (document->kind != Node::Kind::kMap) {
    throw ConfigError(document->location, "",
                      "expected a map at the top level, got " + describe(*document));
  }
  const auto it = std::find_if(document->entries.begin(), document->entries.end(),
                               [](const MapEntry& e) { return e.key == kIncludeKey; });
  if (it == document->entries.end()) return document;

  // The include key is handled here and removed, so it never counts as an unknown key.
  MapEntry include = std::move(*it);
  document->entries.erase(it);
  auto merged = make_node(Node::Kind::kMap, document->location);
  for (const Node* name : include_names(include)) {
    merge_into(*merged, load_file(base_dir / name->text, &name->location), "", MergeBy::kIncludingFile);
  }
  merge_into(*merged, std::move(document), "", MergeBy::kIncludingFile);
  return merged;
}

}  // namespace socsim::config::detail
