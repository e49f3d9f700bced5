#include "sim/systems/shadowattn/shadowattn_options.h"

#include "sim/config/config_error.h"

namespace socsim::systems::shadowattn {

Options read_options(config::Section& root, const hw::SocSpec& soc) {
  Options o;
  const auto s = root.optional_child("shadowattn");
  if (s) {
    if (s->has("sparsity")) o.sparsity = s->number("sparsity", 1e-6, 1.0);
    if (s->has("core_class")) {
      o.core_class = s->choice("core_class", {"prime", "mid", "little", "small"});
      if (o.core_class == "small") o.core_class = "little";
    }
    if (s->has("float_unit")) o.float_on_gpu = s->choice("float_unit", {"cpu", "gpu"}) == "gpu";
    if (s->has("topk_unit")) o.topk_on_gpu = s->choice("topk_unit", {"cpu", "gpu"}) == "gpu";
    o.pipeline = s->boolean_or("pipeline", true);
    o.fuse = s->boolean_or("fuse", true);
    if (s->has("graph_io")) o.client_io = s->choice("graph_io", {"client", "shared"}) == "client";
    if (s->has("max_fuse")) o.max_fuse = static_cast<std::uint32_t>(s->integer("max_fuse", 1, 64));
    o.reorder = s->boolean_or("reorder", true);
    if (s->has("planner")) o.planner = s->choice("planner", {"best", "paper"}) == "paper" ? PlannerKind::kPaper : PlannerKind::kBest;
    o.buckets_enabled = s->boolean_or("buckets_enabled", true);
    if (s->has("buckets")) o.buckets = static_cast<std::uint32_t>(s->integer("buckets", 1, 121));
    if (s->has("step")) o.step = s->number("step", 1e-6, 1.0);
    if (s->has("scale_spread")) o.scale_spread = s->number("scale_spread", 0.0, 5.0);
    if (s->has("scale_centre")) o.oracle_scale_centre = s->choice("scale_centre", {"calibrated", "oracle"}) == "oracle";
    o.per_head_ratio = s->boolean_or("per_head_ratio", true);
    if (s->has("importance_clamp")) o.importance_clamp = s->number("importance_clamp", 1.0, 1e6);
    if (s->has("importance")) {
      const std::string v = s->choice("importance", {"offline", "calibrated", "synthetic"});
      o.importance = v == "offline"      ? Options::ImportanceSource::kOffline
                     : v == "calibrated" ? Options::ImportanceSource::kCalibrated
                                         : Options::ImportanceSource::kSynthetic;
      o.importance_where = s->location_of("importance");
    }
    if (s->has("importance_file")) {
      o.importance_file = s->string("importance_file");
      if (o.importance != Options::ImportanceSource::kAuto && o.importance != Options::ImportanceSource::kOffline) {
        throw config::ConfigError(s->location_of("importance_file"), "shadowattn.importance_file",
                                  "a calibration file is the offline importance; it cannot go with shadowattn.importance=" +
                                      std::string(o.importance == Options::ImportanceSource::kCalibrated ? "calibrated" : "synthetic"));
      }
      o.importance = Options::ImportanceSource::kOffline;
      o.importance_where = s->location_of("importance_file");
    }
    if (s->has("calibration_layers")) o.calibration_layers = static_cast<std::uint64_t>(s->integer("calibration_layers", 0, 1 << 20));
    if (s->has("seed")) o.seed = static_cast<std::uint64_t>(s->integer("seed", 0, 1LL << 40));
  }
  // The class names a rank of the clusters' speed, not a cluster's name (hw::core_class).
  const hw::CoreClass cls = o.core_class == "prime" ? hw::CoreClass::kPrime : o.core_class == "mid" ? hw::CoreClass::kMid : hw::CoreClass::kLittle;
  const hw::CpuClusterSpec* cluster = hw::cluster_of_class(soc.cpu, cls);
  if (!cluster) {
    throw config::ConfigError(s ? s->location_of("core_class") : config::SourceLocation{}, "shadowattn.core_class",
                              "the SoC has no '" + o.core_class + "' CPU cluster (little: the slowest of three or more clusters; this SoC has " +
                                  std::to_string(soc.cpu.clusters.size()) + ")");
  }
  o.cpu_cluster = cluster->name;
  o.cpu_cluster_little = hw::core_class(soc.cpu, static_cast<std::size_t>(cluster - soc.cpu.clusters.data())) == hw::CoreClass::kLittle;
  if (s && s->has("cpu_cores")) o.cpu_cores = static_cast<std::uint32_t>(s->integer("cpu_cores", 1, cluster->cores));
  return o;
}

}  // namespace socsim::systems::shadowattn
