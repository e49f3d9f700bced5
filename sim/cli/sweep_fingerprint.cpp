#include "sim/cli/sweep_fingerprint.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/cli/input_paths.h"
#include "sim/config/config_error.h"
#include "sim/config/config_tree.h"
#include "sim/systems/shadowattn/importance_file.h"

namespace socsim::cli {

namespace {

std::string file_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw config::ConfigError({file.string(), 0, 0}, "", "cannot read this input of the sweep" + config::errno_reason());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Size, then the first and the last MiB (all of a smaller file).
std::string large_file_digest(const std::filesystem::path& file, const std::string& key = "--weights") {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw config::ConfigError({file.string(), 0, 0}, key, "cannot read this input of the sweep (" + ec.message() + ")");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw config::ConfigError({file.string(), 0, 0}, key, "cannot read this input of the sweep" + config::errno_reason());
  constexpr std::uintmax_t kPart = 1 << 20;
  std::string text = std::to_string(size) + ":";
  std::string part(static_cast<std::size_t>(std::min(size, kPart)), '\0');
  in.read(part.data(), static_cast<std::streamsize>(part.size()));
  text += part;
  if (size > kPart) {
    in.seekg(static_cast<std::streamoff>(size - std::min(size - kPart, kPart)));
    part.assign(static_cast<std::size_t>(std::min(size - kPart, kPart)), '\0');
    in.read(part.data(), static_cast<std::streamsize>(part.size()));
    text += part;
  }
  if (!in) throw config::ConfigError({file.string(), 0, 0}, key, "cannot read this input of the sweep (it changed or shrank while being read?)");
  return text;
}

}  // namespace

SweepInputs sweep_inputs_of(const sweep::SweepSpec& spec, const sweep::SweepPlan& plan) {
  SweepInputs in;
  const auto part = [&](std::string what, const std::string& content) {
    std::uint64_t h = 1469598103934665603ULL;
    sweep::fingerprint_mix(h, content);
    in.parts.emplace_back(std::move(what), fmt::format("{:016x}", h));
  };
  in.parts.emplace_back("socsim version", SOCSIM_VERSION);
  part("the runs' arguments", std::to_string(plan.fingerprint));
  std::string named = spec.name + "\n";
  for (const auto& m : spec.metrics) named += m + "\n";
  part("the spec's name and metrics", named);
  // Each distinct input once, in a fixed order (option, then value).
  std::set<std::pair<std::string, std::string>> inputs;
  for (const auto& run : plan.runs) {
    for (std::size_t i = 0; i + 1 < run.args.size(); ++i) {
      const auto& a = run.args[i];
      if (a == "--soc" || a == "--model" || a == "--workload" || a == "--weights") inputs.insert({a, run.args[i + 1]});
      // A setting whose value names a file (shadowattn.importance_file=F, and any such key to
      // come): the file's contents count, not only its name. (A sweep's settings are scalars: its
      // spec refuses the map form `key={...}` that --set takes on the command line.)
      if (a == "--set") {
        const auto& kv = run.args[i + 1];
        const auto eq = kv.find('=');
        std::error_code ec;
        if (eq != std::string::npos && eq + 1 < kv.size() && std::filesystem::is_regular_file(kv.substr(eq + 1), ec)) {
          inputs.insert({"--set-file", kv.substr(eq + 1)});
        }
      }
    }
  }
  for (const auto& [option, value] : inputs) {
    std::string what = option + " " + value;
    if (option == "--soc") {
      // The file with its includes resolved: an included file's change counts too.
      part(what + " (with its includes)", config::ConfigTree::load_file(resolve_input(InputKind::kSoc, value)).dump_yaml());
    } else if (option == "--model") {
      const auto model_file = resolve_input(InputKind::kModel, value);
      std::string content = file_bytes(model_file);
      // Files read by default for this model: shadowAttn's offline head importance.
      if (const auto importance = systems::shadowattn::find_importance_file(model_file.stem().string()); !importance.empty()) {
        // (Named, not located: where the file was found differs between checkouts and nodes.)
        content += file_bytes(importance);
        what += " (and its shadowattn importance file)";
      }
      part(what, content);
    } else if (option == "--set-file") {
      part("the file " + value + " (a --set value)", large_file_digest(value, "--set"));
    } else if (option == "--workload") {
      // With its includes resolved, as a SoC file: an included file's change counts too.
      part(what + " (with its includes)", config::ConfigTree::load_file(resolve_input(InputKind::kWorkload, value)).dump_yaml());
    } else {
      // Checkpoints are gigabytes: their size, header and first and last MiB stand for their
      // contents (not the modification time: copies staged on different nodes differ in it).
      part(what, large_file_digest(value));
    }
  }
  in.fingerprint = 1469598103934665603ULL;
  for (const auto& [what, hash] : in.parts) {
    sweep::fingerprint_mix(in.fingerprint, what);
    sweep::fingerprint_mix(in.fingerprint, hash);
  }
  return in;
}

}  // namespace socsim::cli
