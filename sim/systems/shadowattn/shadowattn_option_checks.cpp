// Options the chosen variant reads but that change nothing: another variant's mechanisms, and on
// shadowattn the options of a mechanism its own switches turned off. Each is refused naming why
// (an audit ran every option at two values; these moved no metric).
#include "sim/systems/shadowattn/shadowattn_system.h"

#include <string>

#include "sim/config/config_tree.h"

namespace socsim::systems {

void ShadowAttnSystem::reject_options_without_effect(config::Section& options) const {
  // The baselines read the options their attention uses (the CPU budget, the float and top-k
  // units; the sparse ones the ratio); shadowAttn's own mechanisms (the estimation graphs'
  // buckets, the per-head ratios from importance, the pipeline and its planner) exist only in
  // shadowattn, and a value given for them elsewhere would be ignored without a word.
  // The family's CPU float subgraphs lose their attention to the variant's own FP32 jobs, and its
  // decode is FP32: llm.npu's CPU float precision has nothing left to set.
  if (const auto host = options.optional_child("llm_npu")) {
    host->refuse({"cpu_float"}, std::string("has no effect under ") + id() + ": its attention runs in its own jobs (FP32 on the CPU) and decode is FP32");
  }
  const auto s = options.optional_child("shadowattn");
  if (!s) return;
  if (variant_ == AttentionVariant::kShadow) {
    // shadowAttn's switches turn mechanisms off; the options of a mechanism turned off are refused.
    if (s->has("per_head_ratio") && !options_.per_head_ratio) {
      s->refuse({"importance", "importance_file", "importance_clamp", "calibration_layers"},
                "sizes the per-head ratios, which per_head_ratio: false replaces by shadowattn.sparsity");
    }
    if (options_.importance != shadowattn::Options::ImportanceSource::kCalibrated) {
      s->refuse({"calibration_layers"}, "applies with shadowattn.importance: calibrated (the layers measured in the run)");
    }
    if (!options_.buckets_enabled) {
      s->refuse({"buckets", "step", "scale_spread", "scale_centre", "max_fuse"},
                "applies to the bucketed estimation graphs, which buckets_enabled: false replaces by a graph per head");
    }
    if (!options_.fuse) s->refuse({"max_fuse"}, "caps the heads fused in one launch, which fuse: false turns off");
    if (!options_.reorder) s->refuse({"planner"}, "orders the pipeline's heads, which reorder: false keeps in order");
    return;
  }
  if (variant_ == AttentionVariant::kCgFull || variant_ == AttentionVariant::kNpuFull) {
    s->refuse({"sparsity"}, std::string("does not apply to ") + id() + " (dense attention keeps every position)");
  }
  if (variant_ != AttentionVariant::kCgSparse) s->refuse({"topk_unit"}, std::string("does not apply to ") + id() + " (it selects no top-k)");
  if (variant_ != AttentionVariant::kNpuFull) s->refuse({"graph_io"}, std::string("applies to NPU attention graphs (shadowattn, npu-full); ") + id() + " has none");
  if (variant_ == AttentionVariant::kNpuFull) s->refuse({"float_unit"}, "does not apply to npu-full (its attention runs on the NPU)");
  s->refuse({"buckets_enabled", "buckets", "step", "scale_spread", "scale_centre", "per_head_ratio", "importance", "importance_file",
             "importance_clamp", "calibration_layers", "pipeline", "fuse", "max_fuse", "reorder", "planner", "seed"},
            std::string("applies to --system shadowattn only, not ") + id());
}

}  // namespace socsim::systems
