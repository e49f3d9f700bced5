// load_workload / parse_workload: a workload YAML file into a checked Workload (format in
// workload.h).
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <string>

#include "sim/config/config_tree.h"
#include "sim/core/printable_text.h"
#include "sim/runtime/workload/length_dist_reader.h"
#include "sim/runtime/workload/workload.h"

namespace socsim::runtime {

namespace {

// Far beyond any model's context (run checks the context separately); these only keep typos
// (an extra zero or three) from becoming hour-long runs.
constexpr LengthLimits kPromptLimits{1, std::uint64_t{1} << 24};
constexpr LengthLimits kDecodeLimits{0, std::uint64_t{1} << 24};
constexpr std::int64_t kMaxRepeat = 1 << 20;

// Optional integer keys state their default here rather than silently elsewhere.
std::uint64_t integer_or(const config::Section& root, std::string_view key, std::int64_t dflt,
                         std::int64_t min, std::int64_t max) {
  return static_cast<std::uint64_t>(root.has(key) ? root.integer(key, min, max) : dflt);
}

Workload read_workload(config::ConfigTree& tree, const std::string& default_name) {
  const config::Section root = tree.root();
  Workload w;
  w.name = root.string_or("name", default_name);
  // Printed in the summary and the reports: an ESC sequence in it set the terminal's title.
  if (const auto bad = first_control_character(w.name); bad && root.has("name")) {
    throw config::ConfigError(root.location_of("name"), "name",
                              fmt::format("holds control character 0x{:02x}; a workload's name is printed in summaries and reports", *bad));
  }
  w.source = root.string_or("source", "");
  const auto prompt = read_length_dist(root, "prompt", kPromptLimits);
  const auto decode = read_length_dist(root, "decode", kDecodeLimits);
  w.batch = integer_or(root, "batch", 1, 1, kMaxBatch);
  w.repeat = integer_or(root, "repeat", 1, 1, kMaxRepeat);
  w.seed = integer_or(root, "seed", 1, 0, std::numeric_limits<std::int64_t>::max());
  // Unknown keys before "missing distribution", see read_length_dist.
  tree.check_all_consumed();
  if (!prompt) throw_missing_distribution(root, "prompt");
  if (!decode) throw_missing_distribution(root, "decode");
  w.prompt = *prompt;
  w.decode = *decode;
  w.prompt_at = root.location_of("prompt");
  w.decode_at = root.location_of("decode");
  if (root.has("batch")) w.batch_at = root.location_of("batch");
  if (root.has("seed") && !w.draws()) {
    throw config::ConfigError(root.location_of("seed"), "seed", "draws nothing: prompt and decode are fixed lengths, or distributions of one possible length (give a distribution of several to draw)");
  }
  return w;
}

}  // namespace

Workload load_workload(const std::filesystem::path& file) {
  auto tree = config::ConfigTree::load_file(file);
  return read_workload(tree, file.stem().string());
}

Workload parse_workload(std::string_view yaml, const std::string& file_name) {
  auto tree = config::ConfigTree::load_string(yaml, file_name);
  return read_workload(tree, std::filesystem::path(file_name).stem().string());
}

}  // namespace socsim::runtime
