#include "sim/systems/llms/llms_options.h"

#include "sim/config/config_error.h"
#include "sim/systems/system.h"

namespace socsim::systems::llms {

Options read_options(config::Section& root) {
  Options o;
  const auto s = root.optional_child("llms");
  if (!s) return o;
  if (s->has("chunk_tokens")) o.chunk_tokens = static_cast<std::uint32_t>(s->integer("chunk_tokens", 1, 4096));
  // Below 2/8 of INT8 no assignment of the three levels can meet the ratio.
  if (s->has("global_ratio")) o.global_ratio = s->number("global_ratio", 0.25, 1.0);
  o.compression = s->boolean_or("compression", true);
  o.recompute_pipeline = s->boolean_or("recompute_pipeline", true);
  o.lifecycle = s->boolean_or("lifecycle", true);
  if (s->has("recompute_system")) {
    o.recompute_system = s->string("recompute_system");
    const auto& registry = SystemRegistry::builtin();
    if (!registry.has(o.recompute_system)) {
      std::string known;
      for (const auto& id : registry.ids()) known += (known.empty() ? "" : ", ") + id;
      throw config::ConfigError(s->location_of("recompute_system"), "llms.recompute_system",
                                "unknown system '" + o.recompute_system + "' (available: " + known + ")");
    }
  }
  if (s->has("density_sigma")) o.density_sigma = s->number("density_sigma", 0.0, 10.0);
  if (s->has("max_context")) o.max_context = static_cast<std::uint64_t>(s->integer("max_context", 1, 1 << 24));
  if (s->has("markov_decay")) o.markov_decay = s->number("markov_decay", 1e-6, 1.0);
  if (s->has("io_granularity")) o.io_granularity = s->choice("io_granularity", {"layer", "chunk"}) == "layer" ? IoGranularity::kLayer : IoGranularity::kChunk;
  if (s->has("io_file_cycles")) o.io_file_cycles = s->number("io_file_cycles", 0.0, 1e10);
  if (s->has("io_tensor_cycles")) o.io_tensor_cycles = s->number("io_tensor_cycles", 0.0, 1e10);
  if (s->has("io_host_copies")) o.io_host_copies = s->number("io_host_copies", 0.0, 16.0);
  o.io_upload = s->boolean_or("io_upload", true);
  o.io_upload_given = s->has("io_upload");
  return o;
}

const char* io_granularity_name(IoGranularity g) { return g == IoGranularity::kLayer ? "layer" : "chunk"; }

}  // namespace socsim::systems::llms
