#include "sim/systems/tts_npu/tts_options.h"

#include <algorithm>

namespace socsim::systems::tts {

const char* exp_option_name(kernels::ExpVariant v) {
  switch (v) {
    case kernels::ExpVariant::kExact: return "fp32";
    case kernels::ExpVariant::kPoly: return "fp16";
    case kernels::ExpVariant::kLut: return "lut";
  }
  return "?";
}

Options read_options(config::Section& root, const hw::SocSpec& soc) {
  Options o;
  std::uint32_t cores = 0;
  for (const auto& c : soc.cpu.clusters) cores += c.cores;
  // llama.cpp's CPU threads: 4, or every core of a smaller CPU (a one-core SoC ended in an
  // internal error: "4 threads requested, the CPU has 1 cores").
  o.cpu_threads = std::clamp<std::uint32_t>(cores, 1, o.cpu_threads);
  const auto s = root.optional_child("tts");
  if (!s) return o;
  if (s->has("dequant")) o.dequant = *kernels::parse_dequant_layout(s->choice("dequant", {"baseline", "hmx-layout", "coalesced", "none"}));
  if (s->has("exp")) {
    const std::string e = s->choice("exp", {"fp32", "fp16", "lut"});
    o.exp = e == "fp32" ? kernels::ExpVariant::kExact : e == "fp16" ? kernels::ExpVariant::kPoly : kernels::ExpVariant::kLut;
  }
  if (s->has("lm_head_unit")) o.lm_head_on_npu = s->choice("lm_head_unit", {"cpu", "npu"}) == "npu";
  if (s->has("cpu_threads")) o.cpu_threads = static_cast<std::uint32_t>(s->integer("cpu_threads", 1, std::max<std::uint32_t>(1, cores)));
  o.q8_0_down = s->boolean_or("q8_0_down", true);
  o.prefetch_weights = s->boolean_or("prefetch", true);
  if (s->has("kv_context")) {
    o.kv_context = static_cast<std::uint64_t>(s->integer("kv_context", 0, 1LL << 24));
    o.kv_context_at = s->location_of("kv_context");
  }
  if (s->has("role")) o.reward = s->choice("role", {"policy", "reward"}) == "reward";
  // A reward model scores with its value head: it has no lm_head to place.
  if (o.reward) s->refuse({"lm_head_unit"}, "places the policy's lm_head; role: reward scores with the value head instead");
  return o;
}

}  // namespace socsim::systems::tts
