#pragma once
// Quantities of a plan that depend on the data, measured by functional mode and followed by the
// plan the timed run executes (run --mode functional; systems::System::use_data): which jobs they
// change and how. Timing mode has none, so its plans use the systems' modelled values.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/runtime/job.h"

namespace socsim::runtime {

// llm.npu's shadow outlier matmul of one (chunk, layer, matmul group): the input channels whose
// activations exceeded the offline scale in this chunk, and how many of them are cold (their
// weight rows are read from storage).
struct ShadowOutliers {
  std::uint64_t channels = 0;
  std::uint64_t cold_channels = 0;
};

// (prefill chunk, layer, head of the plan's attention op).
using HeadKey = std::tuple<std::uint64_t, std::uint32_t, std::uint64_t>;

struct DataDriven {
  // By job name; the system plans each named shadow job from it (llm_npu/outlier_plan.h), none
  // where no channel was an outlier.
  std::map<std::string, ShadowOutliers> shadow_jobs;
  // shadowAttn: the scale bucket each head's estimation took on the real Q and K; the system
  // plans its fused launches from them (systems::System::use_data) instead of drawn scales.
  std::map<HeadKey, std::size_t> head_buckets;
  // Test-time scaling's batched sampling: per sequence of the batch, the decode steps it ran
  // before its sample stopped (its greedy token was an end-of-sequence id; else the request's
  // decode length). Finished sequences leave the batch, so later steps decode fewer rows.
  std::vector<std::uint64_t> decode_steps;
  // llm.npu (and shadowAttn's llm.npu host): every layer's outlier importance, max|outlier| / s,
  // from the offline scale calibration on the run's weights; it picks the layers whose outliers
  // are kept (systems/llm_npu/outlier_plan.h). An offline property of the model, so it holds for
  // every request of the run, not only the measured one. Empty unless all layers were measured.
  std::vector<double> layer_importance;
  // What the report's `data_driven` says: each quantity, its source and summary.
  nlohmann::ordered_json summary = nlohmann::ordered_json::object();

  bool empty() const { return shadow_jobs.empty() && head_buckets.empty() && decode_steps.empty() && layer_importance.empty(); }
  // Sequences still sampling at each decode step (decode_steps' longest entry many steps).
  std::vector<std::uint64_t> active_per_step() const;
  // The measured bucket of (chunk, layer, head), or nullptr where none was measured.
  const std::size_t* head_bucket(std::uint64_t chunk, std::uint32_t layer, std::uint64_t head) const {
    const auto it = head_buckets.find({chunk, layer, head});
    return it == head_buckets.end() ? nullptr : &it->second;
  }
};

}  // namespace socsim::runtime
