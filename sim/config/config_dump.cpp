// ConfigTree::dump_yaml: the configuration actually simulated, after includes and --set, so
// a run's output directory can record exactly what produced it; detail::flow_yaml: one value as
// --set takes it.
#include <string>
#include <yaml-cpp/emitter.h>
#include <yaml-cpp/emittermanip.h>

#include "sim/config/config_node.h"
#include "sim/config/config_tree.h"

namespace socsim::config {
namespace {

using detail::Node;

void emit(YAML::Emitter& out, const Node& node) {
  switch (node.kind) {
    case Node::Kind::kNull:
      out << YAML::Null;
      break;
    case Node::Kind::kScalar:
      // Quoted scalars stay quoted so "1.0" or "on" keep being strings when re-read.
      if (node.quoted) out << YAML::DoubleQuoted;
      out << node.text;
      break;
    case Node::Kind::kSequence:
      out << YAML::BeginSeq;
      for (const auto& item : node.items) emit(out, *item);
      out << YAML::EndSeq;
      break;
    case Node::Kind::kMap:
      out << YAML::BeginMap;
      for (const auto& entry : node.entries) {
        out << YAML::Key << entry.key << YAML::Value;
        emit(out, *entry.value);
      }
      out << YAML::EndMap;
      break;
  }
}

void consume_all(const Node& node) {
  node.consumed = true;
  for (const auto& item : node.items) consume_all(*item);
  for (const auto& entry : node.entries) consume_all(*entry.value);
}

}  // namespace

namespace detail {

std::string flow_yaml(const Node& node) {
  consume_all(node);
  if (node.kind == Node::Kind::kScalar) return node.text;
  YAML::Emitter out;
  out << YAML::Flow;
  emit(out, node);
  return out.c_str();
}

}  // namespace detail

std::string ConfigTree::dump_yaml() const {
  YAML::Emitter out;
  emit(out, *root_);
  std::string text = out.c_str();
  text += '\n';
  return text;
}

}  // namespace socsim::config
