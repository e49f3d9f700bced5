#include "sim/systems/llm_npu/llm_npu_options.h"

#include <cmath>

#include <fmt/format.h>

#include "sim/config/config_error.h"

namespace socsim::systems::llm_npu {

double hot_hit_of(double hot_channels) {
  if (hot_channels <= 0.0) return 0.0;
  if (hot_channels >= 1.0) return 1.0;
  return std::pow(hot_channels, std::log(0.8) / std::log(0.03));
}

Options read_options(config::Section& root, const hw::SocSpec& soc, const model::ModelConfig* model) {
  Options o;
  std::uint32_t big = 0, total = 0;
  for (std::size_t i = 0; i < soc.cpu.clusters.size(); ++i) {
    total += soc.cpu.clusters[i].cores;
    if (hw::core_class(soc.cpu, i) != hw::CoreClass::kLittle) big += soc.cpu.clusters[i].cores;
  }
  o.cpu_threads = big;
  const auto s = root.optional_child("llm_npu");
  if (!s) return o;
  o.chunk = static_cast<std::uint64_t>(s->integer_or("chunk", 256));
  if (o.chunk < 1 || o.chunk > 8192) throw config::ConfigError(s->location_of("chunk"), "llm_npu.chunk", "must be in [1, 8192] tokens");
  o.shadow_outliers = s->boolean_or("shadow_outliers", true);
  if (s->has("activation_scale")) o.minmax_scale = s->choice("activation_scale", {"offline", "minmax"}) == "minmax";
  if (o.minmax_scale && !o.shadow_outliers) {
    throw config::ConfigError(s->location_of("activation_scale"), "llm_npu.activation_scale",
                              "applies to the per-tensor W8A8 path (shadow_outliers: true); per-group INT8 has its own scales");
  }
  if (s->has("outlier_prune")) o.outlier_prune = s->number("outlier_prune", 0.0, 1.0);
  if (s->has("outlier_channels")) {
    // An input has hidden channels at most (more would shadow channels that do not exist).
    const std::int64_t most = model ? static_cast<std::int64_t>(model->hidden) : 4096;
    o.outlier_channels = static_cast<std::uint64_t>(s->integer("outlier_channels", 0, most));
  }
  if (s->has("hot_channels")) o.hot_channels = s->number("hot_channels", 0.0, 1.0);
  if (s->has("hot_hit")) {
    o.hot_hit = s->number("hot_hit", 0.0, 1.0);
    // No resident channel cannot catch an outlier, and every channel resident catches all.
    if ((o.hot_channels == 0.0 && o.hot_hit > 0.0) || (o.hot_channels == 1.0 && o.hot_hit < 1.0)) {
      throw config::ConfigError(s->location_of("hot_hit"), "llm_npu.hot_hit",
                                fmt::format("{} of outliers cannot fall in hot channels when hot_channels is {} ({} of the channels are resident); "
                                            "leave hot_hit out to derive it from hot_channels",
                                            o.hot_hit, o.hot_channels, o.hot_channels == 0.0 ? "none" : "all"));
    }
  } else if (s->has("hot_channels")) {
    o.hot_hit = hot_hit_of(o.hot_channels);  // (it stayed 0.8 whatever hot_channels said)
  }
  // The shadow path's own knobs mean nothing on the per-group INT8 path (no per-tensor scale, so
  // no outliers): refused there rather than ignored.
  if (!o.shadow_outliers) {
    s->refuse({"outlier_prune", "outlier_channels", "hot_channels", "hot_hit"},
              "applies to the shadow outlier path (shadow_outliers: true); per-group INT8 has no outliers");
  } else if (o.minmax_scale) {
    s->refuse({"outlier_prune", "outlier_channels", "hot_channels", "hot_hit"},
              "applies to the offline scale's shadow outliers; activation_scale: minmax spans every value (no outliers, no shadow work)");
  }
  o.ooe = s->boolean_or("ooe", true);
  if (s->has("float_unit")) o.float_on_gpu = s->choice("float_unit", {"cpu", "gpu"}) == "gpu";
  if (s->has("cpu_float")) o.cpu_fp16 = s->choice("cpu_float", {"fp16", "fp32"}) == "fp16";
  // The precision of the CPU's float prefill ops: with those ops on the GPU (FP16 there) it would
  // change nothing, and the CPU's decode keeps FP32 either way.
  if (o.float_on_gpu) s->refuse({"cpu_float"}, "sets the CPU's float precision; with float_unit: gpu the float ops run in FP16 on the GPU");
  if (s->has("cpu_threads")) o.cpu_threads = static_cast<std::uint32_t>(s->integer("cpu_threads", 1, total));
  o.prepared = s->boolean_or("prepared", true);
  o.equivalent_shapes = s->boolean_or("equivalent_shapes", true);
  return o;
}

}  // namespace socsim::systems::llm_npu
