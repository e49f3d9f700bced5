#include "sim/cli/option_owners.h"

#include "sim/config/config_error.h"

namespace socsim::cli {

namespace {

struct Owner {
  const char* key;    // a whole section ("tts") or one key in a SoC section ("npu.shape_policy")
  const char* owner;  // who reads it
  bool section;
};

constexpr Owner kOwners[] = {
    {"tts", "--system tts-npu", true},
    {"shadowattn", "--system shadowattn and its baselines cg-full, cg-sparse, cg-block-sparse, npu-full", true},
    {"llm_npu", "--system llm-npu and the shadowattn family", true},
    {"heterollm", "--system hetero-layer and hetero-tensor", true},
    {"llms", "socsim serve", true},
    {"cpu_only", "--system cpu-only", true},
    {"kernel", "socsim microbench (its kernel switches)", true},
    {"npu.shape_policy", "--system npu-only", false},
    {"npu.standard_lengths", "--system npu-only", false},
};

}  // namespace

void check_all_options_read(const config::ConfigTree& tree, const std::string& system) {
  try {
    tree.check_all_consumed();
  } catch (const config::ConfigError& e) {
    if (e.message().rfind("unknown key", 0) != 0) throw;
    for (const Owner& o : kOwners) {
      if (e.key() != o.key) continue;
      throw config::ConfigError(e.location(), e.key(),
                                std::string(o.section ? "unknown key; its options belong to " : "unknown key; it is an option of ") +
                                    o.owner + ", not --system " + system);
    }
    throw;
  }
}

void refuse_unread_scale_keys(config::Section& root, const std::string& system, bool functional, bool measures_every_scale) {
  // (Asked of shadowattn only: another system's unknown-key message must not learn of the keys.)
  const auto sa = system == "shadowattn" ? root.optional_child("shadowattn") : std::nullopt;
  if (!sa) return;
  if (!functional) {
    sa->refuse({"scale_centre"}, "centres the buckets for the scales functional mode measures; timing mode draws them around the grid's centre (shadowattn.scale_spread)");
  } else if (measures_every_scale) {
    // With every layer of a single request computed it changed nothing (the same report at 0 and 5).
    sa->refuse({"scale_spread"}, "spreads the scales timing mode draws, as for layers past --functional-layers; functional mode here measures every "
                                 "layer's scales (shadowattn.scale_centre centres the buckets for them)");
  }
}

}  // namespace socsim::cli
