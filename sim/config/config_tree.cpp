#include "sim/config/config_tree.h"

#include <utility>

#include "sim/config/config_node.h"
#include "sim/config/include_resolver.h"
#include "sim/config/yaml_reader.h"

namespace socsim::config {

ConfigTree::ConfigTree(std::unique_ptr<detail::Node> root) : root_(std::move(root)) {
  // The root is reached without a lookup, so nothing else would ever mark it.
  root_->consumed = true;
}

ConfigTree::ConfigTree(ConfigTree&&) noexcept = default;
ConfigTree& ConfigTree::operator=(ConfigTree&&) noexcept = default;
ConfigTree::~ConfigTree() = default;

ConfigTree ConfigTree::load_file(const std::filesystem::path& path) {
  detail::IncludeResolver resolver;
  ConfigTree tree(resolver.load_file(path));
  tree.files_ = resolver.files();
  return tree;
}

ConfigTree ConfigTree::load_string(std::string_view yaml, std::string file_name) {
  auto document = detail::read_yaml(yaml, detail::ReadOptions{file_name, true});
  detail::IncludeResolver resolver;
  ConfigTree tree(resolver.resolve(std::move(document), file_name, {}));
  tree.files_ = resolver.files();
  return tree;
}

Section ConfigTree::root() { return Section(root_.get(), ""); }

}  // namespace socsim::config
