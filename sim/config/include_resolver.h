#pragma once
// Internal: loads a configuration document and resolves its top-level `include:` key.
// Included files are the base layer and the including file is merged over them, so a product
// config can say "include: soc_base.yaml" and change only what differs.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/config_node.h"

namespace socsim::config::detail {

class IncludeResolver {
 public:
  // Reads and parses `path` (shown in locations as given), then resolves its includes.
  // `included_from` is the include entry that named it, or null for the top-level file.
  std::unique_ptr<Node> load_file(const std::filesystem::path& path,
                                  const SourceLocation* included_from = nullptr);

  // For an already parsed document (load_string): include paths are taken relative to
  // `base_dir`, which is empty (= the working directory) for strings.
  std::unique_ptr<Node> resolve(std::unique_ptr<Node> document, const std::string& file_name,
                                const std::filesystem::path& base_dir);

  // Every file read so far, the top-level one first, then its includes as met (an output that
  // is one of them would replace it: the commands check).
  const std::vector<std::filesystem::path>& files() const { return files_; }

 private:
  // Files currently being loaded, outermost first, to detect cycles and name them.
  std::vector<std::filesystem::path> chain_;
  std::vector<std::string> chain_names_;
  std::vector<std::filesystem::path> files_;
  std::uintmax_t bytes_read_ = 0;  // of every file loaded, against one configuration's cap
  std::uint64_t nodes_read_ = 0;   // likewise
};

// The whole text of a regular file, or nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::filesystem::path& path);

}  // namespace socsim::config::detail
