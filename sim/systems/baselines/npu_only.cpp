#include "sim/systems/baselines/npu_only.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "sim/core/run_progress.h"
#include "sim/systems/baselines/npu_naive.h"
#include "sim/systems/plan_builder.h"

namespace socsim::systems {

void NpuOnly::configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& m) {
  check_npu_fits(soc, m, weight_bits());
  standard_ = {32, 64, 128, 256, 512, 1024, 2048, 4096};
  if (auto npu = options.optional_child("npu")) {
    const std::string p = npu->has("shape_policy") ? npu->choice("shape_policy", {"online-prepare", "padding", "pipe"}) : "padding";
    policy_ = p == "online-prepare" ? ShapePolicy::kOnlinePrepare : p == "padding" ? ShapePolicy::kPadding : ShapePolicy::kPipe;
    if (npu->has("standard_lengths")) {
      // Online preparation builds a graph at each prompt's own length: no standard lengths (said
      // before anything about the list itself).
      if (policy_ == ShapePolicy::kOnlinePrepare) {
        npu->refuse({"standard_lengths"}, "applies to npu.shape_policy padding or pipe, not online-prepare (graphs at each prompt's own length)");
      }
      standard_.clear();
      for (double v : npu->number_list("standard_lengths")) {
        // (The bound first: a double past 2^64 has no integer to compare with.)
        if (v < 1 || v > 1e15 || v != static_cast<double>(static_cast<std::uint64_t>(v))) {
          throw config::ConfigError(npu->location_of("standard_lengths"), "npu.standard_lengths", "lengths must be positive integers");
        }
        // A graph longer than the model's window is never needed, and padding a prompt to it
        // would lower (and hold) a graph of that many rows.
        if (m.max_context > 0 && v > static_cast<double>(m.max_context)) {
          throw config::ConfigError(npu->location_of("standard_lengths"), "npu.standard_lengths",
                                    fmt::format("{} is longer than the model's window of {} tokens", v, m.max_context));
        }
        standard_.push_back(static_cast<std::uint64_t>(v));
      }
      std::sort(standard_.begin(), standard_.end());
      // A length written twice is most likely a typo for another ([64, 64, 256] for 64, 128, 256).
      if (const auto dup = std::adjacent_find(standard_.begin(), standard_.end()); dup != standard_.end()) {
        throw config::ConfigError(npu->location_of("standard_lengths"), "npu.standard_lengths",
                                  fmt::format("{} is listed twice (each length builds one graph; list it once)", *dup));
      }
      if (standard_.empty()) throw config::ConfigError(npu->location_of("standard_lengths"), "npu.standard_lengths", "needs at least one length");
    }
  }
}

runtime::Plan NpuOnly::plan(const hw::SocSpec&, const model::ModelConfig& m, const RequestShape& r) {
  runtime::Plan plan;
  const Placement npu{kernels::Unit::kNpu, runtime::Precision::kW4A16, 1};
  std::vector<model::GraphOp> prefill;
  std::uint64_t graph_rows = r.prompt;
  const std::uint64_t largest = standard_.back();
  auto next_standard = [&](std::uint64_t n) {
    for (auto s : standard_) {
      if (s >= n) return s;
    }
    return largest;
  };
  switch (policy_) {
    case ShapePolicy::kOnlinePrepare:
      prefill = model::prefill_graph(m, {r.prompt, 0, r.batch, false, false}, true);
      break;
    case ShapePolicy::kPadding:
      // The next standard length; prompts beyond the largest run in chunks of it, last one padded.
      graph_rows = next_standard(r.prompt);
      prefill = model::prefill_graph(m, {r.prompt, graph_rows, r.batch, false, true}, true);
      break;
    case ShapePolicy::kPipe: {
      // Largest standard lengths first; the remainder padded to the smallest that holds it.
      std::uint64_t left = r.prompt, done = 0, chunk = 0;
      while (left > 0) {
        progress_plan_search("the prefill's op graph, token", done + 1, r.prompt);
        std::uint64_t s = standard_.front();
        for (auto v : standard_) {
          if (v <= left) s = v;
        }
        if (s > left) s = next_standard(left);
        const std::uint64_t real = std::min(s, left);
        const auto ops = model::decoder_layer_ops(m, {s, done + s, r.batch}, false);
        model::reserve_graph(prefill, prefill.size() + ops.size() * m.layers + 4);
        for (std::uint32_t l = 0; l < m.layers; ++l) {
          for (const auto& op : ops) prefill.push_back({op, model::Phase::kPrefill, l, chunk});
        }
        left -= real, done += real, ++chunk;
        graph_rows = s;
      }
      for (auto& op : model::head_ops(m, graph_rows * r.batch, false)) {
        prefill.push_back({op, model::Phase::kPrefill, static_cast<std::uint32_t>(m.layers), chunk - 1});
      }
      break;
    }
  }
  // One static graph per decoder layer shape and one for the head, per chunk length (prefill) or
  // batch (decode), shared by every layer (weights bound as graph inputs, as HeteroLLM's engine
  // binds its shared buffers): what online preparation builds for a new length is these few
  // graphs, not the whole model (HeteroLLM 5.2.2: "about 4 graphs' preparation"). Pipe chunks of
  // the same standard length reuse them.
  const std::uint64_t hidden = m.hidden;
  const std::uint32_t layers = m.layers;
  auto rows_of = [hidden](const model::GraphOp& g) { return g.op.elements / hidden; };  // first op: a norm
  auto name_of = [rows_of, layers](const model::GraphOp& g) {
    return std::string("npu-only/") + (g.phase == model::Phase::kPrefill ? "prefill" : "decode") + "/rows" +
           std::to_string(rows_of(g)) + (g.layer >= layers ? "/head" : "/layer");
  };
  SequentialPlanBuilder b([npu](const model::GraphOp&) { return npu; }, name_of);
  b.cut_at_layers();
  build_prefill_decode(plan, b, m, prefill, r);
  // Standard-length graphs are prepared offline (not on the request's critical path); the decode
  // graphs (one row per sequence) too, whatever the policy.
  std::set<std::string> prepared;
  for (const auto& j : plan.jobs) {
    if (j.unit != kernels::Unit::kNpu || j.npu_graph.empty()) continue;
    if (policy_ != ShapePolicy::kOnlinePrepare || j.ops.front().phase == model::Phase::kDecode) prepared.insert(j.npu_graph);
  }
  plan.prepared_graphs.assign(prepared.begin(), prepared.end());
  return plan;
}

}  // namespace socsim::systems
