#include "sim/systems/shadowattn/attention_builder.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "kernels/attention/attention_lower.h"
#include "sim/runtime/lowering/sparse_attention_lowering.h"
#include "sim/systems/shadowattn/calibration.h"
#include "sim/systems/shadowattn/pipeline_planner.h"

namespace socsim::systems::shadowattn {

namespace {

using model::OpKind;
using runtime::Job;
using runtime::Plan;

// Up to this many heads (and groups) in a layer the best planner searches every order (at most
// 4! x 4! evaluations); real models have more heads per layer, tests fewer.
constexpr std::size_t kExactUpTo = 4;

std::uint64_t ratio_ppm(double r) { return static_cast<std::uint64_t>(std::llround(std::min(1.0, r) * runtime::lowering::kRatioUnit)); }

}  // namespace

std::vector<std::uint32_t> AttentionBuilder::build(Plan& plan, const std::vector<std::uint32_t>& pre,
                                                   const std::vector<model::GraphOp>& attn, std::uint32_t layer, std::uint64_t chunk) {
  const model::GraphOp& scores = attn.front();
  const std::string base = "prefill.c" + std::to_string(chunk) + ".L" + std::to_string(layer) + ".attn";
  switch (v_) {
    case AttentionVariant::kCgFull: {
      Job j = float_job(base + ".full");
      j.ops = attn;
      return {add(plan, std::move(j), pre)};
    }
    case AttentionVariant::kNpuFull: {
      Job j = npu_job(base + ".npu_full");
      j.ops = attn;
      j.npu_graph = "npu-full/q" + std::to_string(scores.op.m) + "/kv" + std::to_string(scores.op.n);
      stats_.graphs.insert(j.npu_graph);
      ++stats_.launches;
      return {add(plan, std::move(j), pre)};
    }
    case AttentionVariant::kCgBlockSparse: {
      Job j = float_job(base + ".block_sparse");
      model::OpDesc op = scores.op;
      op.name = "block_sparse_attention";
      op.kind = OpKind::kBlockSparseAttn;
      op.weight_params = ratio_ppm(o_.sparsity);
      j.ops = {{op, scores.phase, layer, chunk}};
      return {add(plan, std::move(j), pre)};
    }
    case AttentionVariant::kCgSparse: {
      Job est = float_job(base + ".estimate");
      est.ops = {scores};
      const auto e = add(plan, std::move(est), pre);
      Job tk = topk_job(base + ".topk");
      tk.ops = {{topk_op(scores.op, scores.op.batch, o_.sparsity), scores.phase, layer, chunk}};
      const auto t = add(plan, std::move(tk), {e});
      Job sp = float_job(base + ".sparse");
      sp.ops = {{sparse_op(scores.op, scores.op.batch, o_.sparsity), scores.phase, layer, chunk}};
      return {add(plan, std::move(sp), {t})};
    }
    case AttentionVariant::kShadow: return shadow(plan, pre, scores, layer, chunk, base);
  }
  return {};
}

model::OpDesc AttentionBuilder::topk_op(const model::OpDesc& s, std::uint64_t heads, double ratio) const {
  model::OpDesc op;
  op.name = "topk";
  op.kind = OpKind::kTopK;
  op.m = s.m, op.k = s.k, op.n = s.n, op.batch = heads;
  op.weight_params = ratio_ppm(ratio);
  return op;
}

model::OpDesc AttentionBuilder::sparse_op(const model::OpDesc& s, std::uint64_t heads, double ratio) const {
  model::OpDesc op;
  op.name = "sparse_attention";
  op.kind = OpKind::kSparseAttn;
  op.m = s.m, op.k = s.k, op.n = s.n, op.batch = heads;
  op.weight_params = ratio_ppm(ratio);
  // The positions the top-k kept: its ratio as the ops carry it (whole parts per million, the
  // ratio the top-k's lowering and functional mode's selection use), not the unrounded one.
  op.elements = kernels::sparse_kept_total(runtime::lowering::sparse_op_shape(op, m_), runtime::lowering::op_ratio(op));
  return op;
}

Job AttentionBuilder::cpu_job(std::string name, std::uint32_t threads) const {
  Job j;
  j.name = std::move(name);
  j.unit = kernels::Unit::kCpu;
  j.precision = runtime::Precision::kFp32;
  j.cpu_cluster = o_.cpu_cluster;
  j.cpu_threads = threads ? threads : o_.cpu_cores;
  j.lane = "attn";
  j.attention_module = true;
  return j;
}

Job AttentionBuilder::float_job(std::string name, std::uint32_t threads) const {
  if (!o_.float_on_gpu) return cpu_job(std::move(name), threads);
  Job j;
  j.name = std::move(name);
  j.unit = kernels::Unit::kGpu;
  j.precision = runtime::Precision::kFp32;
  j.lane = "attn.gpu";
  j.attention_module = true;
  return j;
}

Job AttentionBuilder::topk_job(std::string name, std::uint32_t threads) const {
  if (!o_.topk_on_gpu) return cpu_job(std::move(name), threads);
  Job j = cpu_job(std::move(name), threads);
  j.unit = kernels::Unit::kGpu;
  j.lane = "attn.gpu";
  return j;
}

Job AttentionBuilder::npu_job(std::string name) const {
  Job j;
  j.name = std::move(name);
  j.unit = kernels::Unit::kNpu;
  j.precision = runtime::Precision::kW8A8;
  j.lane = "npu";
  j.attention_module = true;
  j.npu_client_io = o_.client_io;
  return j;
}

double AttentionBuilder::warm_ms(Job& j) const {
  if (j.unit != kernels::Unit::kCpu) {
    const Tick t = profiler_.duration(j);
    if (host_.ooe) j.estimate = t;
    return to_ms(t);
  }
  const runtime::JobProfiler::Profile p = profiler_.profile(j);
  if (host_.ooe) j.estimate = p.cold;
  return to_ms(p.warm);
}

std::uint32_t AttentionBuilder::add(Plan& plan, Job&& j, const std::vector<std::uint32_t>& deps) {
  j.deps.insert(j.deps.end(), deps.begin(), deps.end());
  return plan.add(std::move(j));
}

std::vector<std::uint32_t> AttentionBuilder::shadow(Plan& plan, const std::vector<std::uint32_t>& pre, const model::GraphOp& scores,
                                                    std::uint32_t layer, std::uint64_t chunk, const std::string& base) {
  // A batch's sequences go through the pipeline together, head by head: a head's estimation
  // launch, top-k and sparse attention each cover that head of every sequence (one kernel call
  // with the batch as its outer dimension), as the batch's matmuls cover every sequence's rows.
  // The pipeline's units are the model's heads at any batch; a unit's work grows with the batch
  // (issue #21: per (sequence, head) units made 166k jobs at batch 16).
  const std::uint64_t heads = m_.heads;
  if (heads == 0 || scores.op.batch % heads != 0) {
    throw std::logic_error("shadowattn: attention of " + std::to_string(scores.op.batch) + " heads is not whole sequences of " +
                           std::to_string(heads));
  }
  const std::uint64_t sequences = scores.op.batch / heads;
  // Buckets of each head's scales (drawn around the calibrated mean, which centres the grid:
  // timing mode computes no tensors) and its ratio. A head's INT8 scales over a batch are the
  // largest of its sequences' (a max-abs scale of the batch's slice), so the launch takes the
  // bucket of the per-dimension maximum.
  const auto grid = shadowattn::bucket_grid({1.0, 1.0}, o_.buckets, o_.step);
  std::vector<std::size_t> bucket(heads);
  std::vector<double> ratio(heads);
  // Functional mode measured them on the real Q and K: those, where it did (each sequence's
  // bucket stands for its scales).
  const runtime::DataDriven* measured = scores.phase == model::Phase::kPrefill ? data_ : nullptr;
  for (std::uint64_t h = 0; h < heads; ++h) {
    shadowattn::ScalePair batch_scale{0.0, 0.0};
    for (std::uint64_t s = 0; s < sequences; ++s) {
      const std::uint64_t unit = s * heads + h;  // the attention op's (sequence, head) index
      const std::size_t* b = measured ? measured->head_bucket(chunk, layer, unit) : nullptr;
      const shadowattn::ScalePair sc = b ? grid.at(*b) : shadowattn::synthetic_scales(o_.seed, layer, unit, chunk, o_.scale_spread);
      batch_scale.q = std::max(batch_scale.q, sc.q);
      batch_scale.k = std::max(batch_scale.k, sc.k);
    }
    bucket[h] = shadowattn::nearest_bucket(grid, batch_scale);
    ratio[h] = o_.per_head_ratio ? ratios_.at(layer * heads + h) : o_.sparsity;
  }
  // Fused groups: heads sharing a bucket, at most max_fuse per launch.
  std::vector<std::vector<std::uint32_t>> groups;
  if (o_.fuse && o_.buckets_enabled) {
    std::map<std::size_t, std::vector<std::uint32_t>> by_bucket;
    for (std::uint32_t h = 0; h < heads; ++h) by_bucket[bucket[h]].push_back(h);
    for (const auto& [b, hs] : by_bucket) {
      for (std::size_t i = 0; i < hs.size(); i += o_.max_fuse) {
        groups.emplace_back(hs.begin() + static_cast<std::ptrdiff_t>(i),
                            hs.begin() + static_cast<std::ptrdiff_t>(std::min(hs.size(), i + o_.max_fuse)));
      }
    }
  } else {
    for (std::uint32_t h = 0; h < heads; ++h) groups.push_back({h});
  }
  // The NPU estimates the padded chunk (its static graphs are for llm.npu's chunk length).
  model::OpDesc est = scores.op;
  est.name = "qk_estimate";
  est.kind = OpKind::kQkEstimate;
  est.n = scores.op.n - scores.op.m + host_.chunk;
  est.m = host_.chunk;
  std::vector<Job> npu_jobs, topk_jobs, qkv_jobs;
  npu_jobs.reserve(groups.size());
  topk_jobs.reserve(heads);
  qkv_jobs.reserve(heads);
  shadowattn::PipelineInput in;
  in.groups.reserve(groups.size());
  in.npu.reserve(groups.size());
  in.heads.reserve(heads);
  // Lanes: top-k and sparse attention share one when both sit on the GPU's in-order queue or on
  // a single budget core; top-k gets a core of its own when the budget has two or more.
  const bool own_topk_core = !o_.topk_on_gpu && !o_.float_on_gpu && o_.cpu_cores >= 2;
  in.shared_cpu = o_.topk_on_gpu == o_.float_on_gpu && !own_topk_core;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Job j = npu_job(base + ".estimate.g" + std::to_string(g));
    model::OpDesc op = est;
    op.batch = groups[g].size() * sequences;
    j.ops = {{op, scores.phase, layer, chunk}};
    const std::size_t b = bucket[groups[g].front()];
    j.npu_graph = o_.buckets_enabled ? "shadowattn/b" + std::to_string(b) + "/d" + std::to_string(op.k) + "/h" + std::to_string(op.batch) +
                                           "/q" + std::to_string(op.m) + "/kv" + std::to_string(op.n)
                                     : "shadowattn/online/c" + std::to_string(chunk) + "/L" + std::to_string(layer) + "/h" +
                                           std::to_string(groups[g].front());
    stats_.graphs.insert(j.npu_graph);
    in.groups.push_back(groups[g]);
    in.npu.push_back(warm_ms(j));  // the NPU job's time alone (no warm-up to leave out)
    npu_jobs.push_back(std::move(j));
  }
  for (std::uint32_t h = 0; h < heads; ++h) {
    Job t = topk_job(base + ".topk.h" + std::to_string(h), 1);
    if (own_topk_core) t.lane = "attn.topk";
    t.ops = {{topk_op(scores.op, sequences, ratio[h]), scores.phase, layer, chunk}};
    t.ops.front().op.name = "topk.h" + std::to_string(h);  // per head (functional mode reads its ratio)
    Job q = float_job(base + ".sparse.h" + std::to_string(h), own_topk_core ? o_.cpu_cores - 1 : 0);
    q.ops = {{sparse_op(scores.op, sequences, ratio[h]), scores.phase, layer, chunk}};
    q.ops.front().op.name = "sparse_attention.h" + std::to_string(h);
    in.heads.push_back({warm_ms(t), warm_ms(q)});
    topk_jobs.push_back(std::move(t));
    qkv_jobs.push_back(std::move(q));
  }
  const shadowattn::PipelinePlan order = o_.reorder ? shadowattn::plan_pipeline(in, o_.planner, kExactUpTo) : shadowattn::plan_in_order(in);
  stats_.planned_ms += order.makespan;
  stats_.in_order_ms += shadowattn::plan_in_order(in).makespan;
  stats_.launches += groups.size();
  stats_.heads += heads;

  std::vector<std::uint32_t> npu_id(groups.size()), group_of(heads);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (auto h : groups[g]) group_of[h] = static_cast<std::uint32_t>(g);
  }
  std::vector<std::uint32_t> prev = pre;
  if (o_.reorder) {
    // The greedy planner runs online, on a core of the budget's class, before the layer's first
    // launch. It has its own lane: the thread that plans and launches the layer's estimation
    // does not queue behind the sparse-attention work still running on the budget core (on
    // the "attn" lane it held back every launch of the next chunk's layer until that lane
    // drained: +11 ms of attention at 1024 tokens on qwen2-0.5b).
    Job pj = cpu_job(base + ".plan", 1);
    pj.lane = "attn.plan";
    model::OpDesc op;
    op.name = "pipeline_plan";
    op.kind = OpKind::kPipelinePlan;
    op.elements = order.evaluations * kPlanOpsPerEvaluation;
    pj.ops = {{op, scores.phase, layer, chunk}};
    stats_.plan_ms += warm_ms(pj);
    stats_.plan_evaluations += order.evaluations;
    ++stats_.plan_jobs;
    prev = {add(plan, std::move(pj), pre)};
  }
  for (auto g : order.npu_order) {
    npu_id[g] = add(plan, std::move(npu_jobs[g]), prev);
    prev = {npu_id[g]};
  }
  std::vector<std::uint32_t> finals;
  bool has_t = false, has_q = false;
  std::uint32_t last_t = 0, last_q = 0;
  for (auto h : order.cpu_order) {
    std::vector<std::uint32_t> deps = {npu_id[group_of[h]]};
    if (!o_.pipeline) deps = npu_id;  // every estimation of the layer first
    if (has_t) deps.push_back(last_t);
    if (in.shared_cpu && has_q) deps.push_back(last_q);
    last_t = add(plan, std::move(topk_jobs[h]), deps);
    has_t = true;
    std::vector<std::uint32_t> qdeps = {last_t};
    if (has_q) qdeps.push_back(last_q);
    last_q = add(plan, std::move(qkv_jobs[h]), qdeps);
    has_q = true;
    finals.push_back(last_q);
  }
  return finals;
}

}  // namespace socsim::systems::shadowattn
