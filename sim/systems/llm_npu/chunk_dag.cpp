#include "sim/systems/llm_npu/chunk_dag.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "sim/model/layer_ops.h"
#include "sim/systems/llm_npu/outlier_plan.h"

namespace socsim::systems::llm_npu {

namespace {

using model::OpKind;

bool is_attention_group(const std::string& name) {
  return name.rfind("q_proj", 0) == 0 || name.rfind("k_proj", 0) == 0 || name.rfind("v_proj", 0) == 0 ||
         name.rfind("o_proj", 0) == 0;
}

bool is_ffn_group(const std::string& name) {
  return name.rfind("gate_proj", 0) == 0 || name.rfind("up_proj", 0) == 0 || name.rfind("down_proj", 0) == 0 ||
         name.rfind("fc1", 0) == 0 || name.rfind("fc2", 0) == 0;
}

// A matmul of an NPU-placed group, or its dequantize.
bool on_npu(const model::OpDesc& op, std::uint32_t layer, const NpuPlacement& p) {
  if (op.kind != OpKind::kMatMul && op.kind != OpKind::kDequantize) return false;
  if (is_attention_group(op.name)) return p.attention[layer];
  if (is_ffn_group(op.name)) return p.ffn[layer];
  return false;
}

struct Segment {
  bool npu = false;
  std::uint32_t layer = 0;
  std::vector<model::GraphOp> ops;
  bool has_attention = false;
  std::uint64_t group_out = 0;  // NPU segment: outputs of its matmul group (n summed), for the shadow
};

// The subgraph sequence of chunk `i` with `rows` real tokens and `context` keys seen by its last.
std::vector<Segment> chunk_segments(const Options& o, const model::ModelConfig& m, const NpuPlacement& place, std::uint64_t i,
                                    std::uint64_t rows, std::uint64_t batch, bool last_chunk) {
  const std::uint64_t context = i * o.chunk + rows;
  std::vector<Segment> segs;
  for (std::uint32_t l = 0; l < m.layers; ++l) {
    // The NPU computes the padded chunk; the float unit only the real rows. Both lists have the
    // same ops in the same order.
    const auto padded = model::decoder_layer_ops(m, {o.chunk, i * o.chunk + o.chunk, batch}, true);
    const auto real = model::decoder_layer_ops(m, {rows, context, batch}, true);
    for (std::size_t k = 0; k < real.size(); ++k) {
      const bool npu = on_npu(real[k], l, place);
      if (segs.empty() || segs.back().npu != npu) segs.push_back({npu, l, {}, false, 0});
      auto& s = segs.back();
      s.ops.push_back({npu ? padded[k] : real[k], model::Phase::kPrefill, l, i});
      if (real[k].kind == OpKind::kAttnScores) s.has_attention = true;
      if (npu && real[k].kind == OpKind::kMatMul) s.group_out += real[k].n;
    }
  }
  if (last_chunk) {
    // The first token's logits: final norm and lm_head over the last real row, on the float unit.
    for (const auto& op : model::head_ops(m, batch, false)) {
      if (segs.back().npu) segs.push_back({false, static_cast<std::uint32_t>(m.layers), {}, false, 0});
      segs.back().ops.push_back({op, model::Phase::kPrefill, static_cast<std::uint32_t>(m.layers), i});
    }
  }
  return segs;
}

runtime::Precision float_precision(const Options& o, const Segment& s) {
  if (o.float_on_gpu) return runtime::Precision::kFp16;
  const bool has_matmul = std::any_of(s.ops.begin(), s.ops.end(), [](const model::GraphOp& g) { return g.op.kind == OpKind::kMatMul; });
  if (has_matmul) return runtime::Precision::kW8A8;  // CPU-placed matmuls keep INT8 weights
  return o.cpu_fp16 ? runtime::Precision::kFp16 : runtime::Precision::kFp32;
}

}  // namespace

PrefillDag build_prefill_dag(runtime::Plan& plan, const Options& o, const model::ModelConfig& m, const NpuPlacement& place,
                             const std::vector<bool>& shadow_kept, std::uint64_t prompt, std::uint64_t batch,
                             const runtime::DataDriven* data) {
  PrefillDag dag;
  std::size_t measured_shadows = 0;  // shadow jobs whose outliers functional mode measured
  dag.chunks = (prompt + o.chunk - 1) / o.chunk;
  const kernels::Unit float_unit = o.float_on_gpu ? kernels::Unit::kGpu : kernels::Unit::kCpu;
  std::vector<std::vector<std::uint32_t>> main(dag.chunks);  // main subgraph job ids per chunk
  // Per chunk and subgraph index: the job that writes an attention subgraph's keys and values
  // (its ops before the attention), when it has any.
  std::vector<std::map<std::size_t, std::optional<std::uint32_t>>> keys(dag.chunks);
  std::set<std::string> graphs;
  bool has_prev_main = false;
  std::uint32_t prev_main = 0;  // program order (in-order execution)
  for (std::uint64_t i = 0; i < dag.chunks; ++i) {
    const std::uint64_t rows = std::min(o.chunk, prompt - i * o.chunk);
    const auto segs = chunk_segments(o, m, place, i, rows, batch, i + 1 == dag.chunks);
    std::vector<std::uint32_t> pending_shadows;  // shadows the next float subgraph merges
    for (std::size_t j = 0; j < segs.size(); ++j) {
      const Segment& s = segs[j];
      runtime::Job job;
      job.name = "prefill.c" + std::to_string(i) + ".L" + std::to_string(s.layer) + "." + s.ops.front().op.name;
      job.ops = s.ops;
      if (s.npu) {
        job.unit = kernels::Unit::kNpu;
        job.lane = "npu";
        job.precision = o.shadow_outliers ? runtime::Precision::kW8A8 : runtime::Precision::kW8A8Group;
        if (o.shadow_outliers && !o.minmax_scale) {
          // Kept layers recombine their outliers exactly; pruned layers drop them.
          job.outliers = shadow_kept[s.layer] ? runtime::OutlierHandling::kShadow : runtime::OutlierHandling::kClip;
          job.outlier_channels = static_cast<std::uint32_t>(o.outlier_channels);
        }
        job.npu_kernels.graph_layout = o.equivalent_shapes ? kernels::GraphActivationLayout::kEquivalentShape
                                                           : kernels::GraphActivationLayout::kTokensAsHeight;
        job.npu_graph = "llm-npu/c" + std::to_string(o.chunk) + "/L" + std::to_string(s.layer) + "/" + s.ops.front().op.name;
        graphs.insert(job.npu_graph);
      } else {
        job.unit = float_unit;
        job.lane = "float";
        job.precision = float_precision(o, s);
        job.cpu_threads = o.cpu_threads;
        if (!pending_shadows.empty()) {
          // The partial sums of the shadow matmuls join the NPU output first.
          for (std::uint32_t sh : pending_shadows) {
            const auto& shadow_op = plan.jobs[sh].ops.front().op;
            job.ops.insert(job.ops.begin(), {outlier_merge(shadow_op.m, shadow_op.n), model::Phase::kPrefill, s.layer, i});
            job.deps.push_back(sh);
          }
          pending_shadows.clear();
        }
      }
      if (j > 0) job.deps.push_back(main[i][j - 1]);
      if (!o.ooe && has_prev_main && (j == 0 || prev_main != main[i][j - 1])) job.deps.push_back(prev_main);
      // Cross-chunk (§3.4): a chunk's attention needs the keys and values of the chunks before it
      // in that layer (G[e][j-1] for e <= i), not their attention. Keys are written once roped, so
      // the float subgraph splits there: its ops up to the attention (biases, RoPE) are a job of
      // their own, the one later chunks' attention waits for; the attention and what follows it
      // wait for those of every earlier chunk (waiting for their whole subgraph held a chunk's
      // attention behind the previous chunk's, and the NPU idle: a 257-token prompt took 14% longer
      // than a 280-token one). A float subgraph holding several layers' attention (layers left
      // wholly to the CPU past the NPU's address space) writes later layers' keys after its first
      // attention: later chunks wait for all of it, as before.
      const auto is_scores = [](const model::GraphOp& g) { return g.op.kind == OpKind::kAttnScores; };
      const auto scores = std::find_if(job.ops.begin(), job.ops.end(), is_scores);
      const bool one_attention = std::count_if(job.ops.begin(), job.ops.end(), is_scores) == 1;
      if (s.has_attention && one_attention && scores != job.ops.begin()) {
        runtime::Job kv = job;
        kv.ops.assign(job.ops.begin(), scores);
        kv.name += ".kv";
        job.ops.erase(job.ops.begin(), scores);
        const std::uint32_t kv_id = plan.add(std::move(kv));
        keys[i][j] = kv_id;
        job.deps = {kv_id};
      } else if (s.has_attention) {
        keys[i][j] = std::nullopt;
      }
      if (s.has_attention) {
        for (std::uint64_t e = 0; e < i; ++e) job.deps.push_back(keys[e][j] ? *keys[e][j] : main[e][j]);
      }
      const std::uint32_t id = plan.add(std::move(job));
      main[i].push_back(id);
      prev_main = id;
      has_prev_main = true;
      if (s.npu && o.shadow_outliers && !o.minmax_scale && shadow_kept[s.layer] && j > 0) {
        // The outliers of this subgraph's input, on the float unit beside the NPU matmul.
        const std::string name = shadow_job_name(i, s.layer, s.ops.front().op.name);
        bool measured = false;
        const ShadowWork work = shadow_work(o, data, name, s.group_out, &measured);
        measured_shadows += measured ? 1 : 0;
        if (work.channels == 0) continue;  // no outlier in this chunk: no shadow, no merge
        runtime::Job sh;
        sh.name = name;
        sh.unit = float_unit;
        sh.lane = "float";
        sh.precision = o.float_on_gpu ? runtime::Precision::kFp16 : runtime::Precision::kFp32;
        sh.cpu_threads = o.cpu_threads;
        sh.ops.push_back({shadow_matmul(rows * batch, work.channels, s.group_out), model::Phase::kPrefill, s.layer, i});
        sh.storage_read_bytes = work.cold_bytes;
        sh.deps.push_back(main[i][j - 1]);
        pending_shadows.push_back(plan.add(std::move(sh)));
        ++dag.shadow_jobs;
      }
    }
    dag.subgraphs_per_chunk = segs.size();
    dag.npu_subgraphs_per_chunk = static_cast<std::uint64_t>(std::count_if(segs.begin(), segs.end(), [](const Segment& s) { return s.npu; }));
  }
  if (data && measured_shadows != data->shadow_jobs.size()) {
    throw std::logic_error("data-driven outliers for " + std::to_string(data->shadow_jobs.size()) + " shadow jobs, the plan has " +
                           std::to_string(measured_shadows) + " of them");
  }
  dag.last = main.back().back();
  dag.npu_graphs.assign(graphs.begin(), graphs.end());
  return dag;
}

}  // namespace socsim::systems::llm_npu
