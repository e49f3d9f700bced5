#include "sim/systems/heterollm/heterollm_system.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "sim/config/config_error.h"
#include "sim/runtime/decode_step_copy.h"
#include "sim/runtime/job_name.h"
#include "sim/systems/baselines/npu_naive.h"
#include "sim/systems/heterollm/partition_jobs.h"
#include "sim/systems/plan_builder.h"
#include "sim/systems/memory_fit.h"

namespace socsim::systems {

namespace heterollm {

std::size_t sibling_end(const std::vector<model::GraphOp>& ops, std::size_t i, std::uint64_t& n) {
  const model::OpDesc& first = ops[i].op;
  n = first.n;
  std::size_t e = i + 1;
  while (e < ops.size() && ops[e].op.kind == model::OpKind::kMatMul && ops[e].op.m == first.m && ops[e].op.k == first.k) {
    n += ops[e].op.n;
    ++e;
  }
  return e;
}

Options read_options(config::Section& root, std::uint64_t max_length) {
  Options o;
  const auto s = root.optional_child("heterollm");
  if (!s) return o;
  o.fast_sync = s->boolean_or("fast_sync", true);
  o.explain = s->boolean_or("explain", false);
  o.force_split = s->boolean_or("force_split", false);
  if (s->has("profiler")) o.predict = s->choice("profiler", {"real", "predict"}) == "predict";
  if (s->has("gpu_tflops")) {
    o.gpu_flops = s->number("gpu_tflops", 0.001, 1000) * 1e12;
    if (!o.predict) throw config::ConfigError(s->location_of("gpu_tflops"), "heterollm.gpu_tflops", "applies to profiler: predict");
  }
  if (s->has("prefill_home")) o.prefill_npu_home = s->choice("prefill_home", {"npu", "gpu"}) == "npu";
  if (s->has("row_align")) o.row_align = static_cast<std::uint64_t>(s->integer("row_align", 1, 1 << 20));
  if (s->has("seq_align")) {
    o.seq_align = static_cast<std::uint64_t>(s->integer("seq_align", 1, 1 << 20));
    o.seq_align_set = true;
    // The prompt is rounded up to it for the NPU's graphs: past the window, a 64-token prompt ran as
    // a graph of a million rows (16 hours), as a standard length past it is refused.
    if (max_length > 0 && o.seq_align > max_length) {
      throw config::ConfigError(s->location_of("seq_align"), "heterollm.seq_align",
                                fmt::format("{} is longer than the model's window of {} tokens (the NPU's graphs take the prompt rounded up to it)",
                                            o.seq_align, max_length));
    }
  }
  if (s->has("standard_lengths")) {
    o.standard.clear();
    for (double v : s->number_list("standard_lengths")) {
      if (v < 1 || v > 1e15 || v != static_cast<double>(static_cast<std::uint64_t>(v))) {
        throw config::ConfigError(s->location_of("standard_lengths"), "heterollm.standard_lengths", "lengths must be positive integers");
      }
      if (max_length > 0 && v > static_cast<double>(max_length)) {
        throw config::ConfigError(s->location_of("standard_lengths"), "heterollm.standard_lengths",
                                  fmt::format("{} is longer than the model's window of {} tokens", v, max_length));
      }
      o.standard.push_back(static_cast<std::uint64_t>(v));
    }
    std::sort(o.standard.begin(), o.standard.end());
    // A length written twice is most likely a typo for another ([64, 64, 256] for 64, 128, 256).
    if (const auto dup = std::adjacent_find(o.standard.begin(), o.standard.end()); dup != o.standard.end()) {
      throw config::ConfigError(s->location_of("standard_lengths"), "heterollm.standard_lengths",
                                fmt::format("{} is listed twice (each length is one graph; list it once)", *dup));
    }
    if (o.standard.empty()) {
      throw config::ConfigError(s->location_of("standard_lengths"), "heterollm.standard_lengths", "needs at least one length");
    }
  }
  return o;
}

}  // namespace heterollm

void HeteroLlm::configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& m) {
  require_npu(soc, id());
  options_ = heterollm::read_options(options, m.max_context);
  // Layer level places whole ops: the row cut's alignment and a forced split have no cut to shape.
  if (const auto s = options.optional_child("heterollm"); s && !tensor_) {
    s->refuse({"force_split", "row_align"}, "shapes tensor partitions, which --system hetero-layer does not make (hetero-tensor does)");
  }
  // Every matmul may run (in part) on the NPU: its W4A16 weights must fit the NPU's address space.
  check_npu_fits(soc, m, weight_bits());
  decisions_.clear();
  seq_align_said_ = false;
  profiler_.reset();
  predictor_.reset();
  step_template_.reset();  // (made under the options before)
}

runtime::SyncPolicy HeteroLlm::sync_policy() const {
  runtime::SyncPolicy s;
  if (options_.fast_sync) {
    s.shared_buffers = true;
    s.fast = true;
  } else {
    s.flush_each_gpu_kernel = true;  // the engine's standard path (SyncPolicy)
  }
  return s;
}

const heterollm::Partition& HeteroLlm::decide(const hw::SocSpec& soc, const model::ModelConfig& m, bool decode,
                                              std::uint64_t rows, std::uint64_t k, std::uint64_t n, std::uint64_t npu_rows) {
  const DecisionKey key{decode, rows, k, n, npu_rows};
  if (const auto it = decisions_.find(key); it != decisions_.end()) return it->second;
  return decisions_.emplace(key, solve_group(soc, m, key, nullptr, options_.explain)).first->second;
}

heterollm::Partition HeteroLlm::solve_group(const hw::SocSpec& soc, const model::ModelConfig& m, const DecisionKey& key,
                                            const StepCost* in_step, bool say, const heterollm::Partition* shown) {
  const auto& [decode, rows, k, n, npu_rows] = key;
  heterollm::SolverParams p;
  p.standard = options_.standard;
  p.row_align = options_.row_align;
  p.seq_align = options_.seq_align;
  p.decode = decode;
  p.allow_split = tensor_;
  p.npu_home = !decode && options_.prefill_npu_home;
  p.force_split = options_.force_split;
  p.npu_only_rows = npu_rows;
  // What handing an NPU part its input and taking its output back costs (the solver's T_sync and
  // T_copy) with fast sync: poll a flag, submit into a live queue, no copies. The partition is
  // HeteroLLM's whatever the sync mechanism: its ablation (5.4) keeps Hetero-tensor's plan and
  // swaps only the synchronization (sync_policy()), so the solver always assumes fast sync.
  p.sync = soc.cpu.poll_interval + soc.gpu.submit;
  p.copy = 0;
  if (!profiler_) profiler_ = std::make_unique<heterollm::PartitionProfiler>(soc, m);
  if (options_.predict && !predictor_) {
    // Offline: real profiles of the NPU over the model's input widths, the standard lengths (and
    // one row for decode) and column counts up to the widest matmul, then the tree.
    std::vector<std::uint64_t> rows = options_.standard, ks = {m.hidden};
    rows.insert(rows.begin(), 1);
    std::uint64_t widest = std::max<std::uint64_t>(m.vocab, 3 * m.intermediate);
    for (const auto& op : model::decoder_layer_ops(m, {1, 1, 1}, false)) {
      if (op.kind != model::OpKind::kMatMul) continue;
      if (std::find(ks.begin(), ks.end(), op.k) == ks.end()) ks.push_back(op.k);
      widest = std::max(widest, op.n);
    }
    predictor_ = std::make_unique<heterollm::PredictionProfiler>(soc, m, rows, ks, widest, options_.gpu_flops);
  }
  std::vector<heterollm::Partition> all;
  // With the NPU home, a GPU part also cuts the neighbours' graph in two: one more graph call.
  if (p.npu_home) p.cut_call = soc.npu.graph.execute_overhead;
  // Profiled alone, every candidate pays a graph call; with the NPU home an NPU-only op joins
  // the open graph of its neighbours instead (a split cuts that graph: its NPU part is a call).
  const Tick joined = p.npu_home ? soc.npu.graph.execute_overhead : 0;
  // In its step each part is timed alone: the step's replay shares DRAM between them as they
  // overlap there (step_context.h), not as an idle SoC's profile aligns them.
  const auto cost = [&](const heterollm::Partition& c) {
    heterollm::PartTimes t = in_step ? step_part_times(c) : predictor_ ? predictor_->time(c) : profiler_->time(c);
    if (c.kind == heterollm::CutKind::kNpuOnly) t.npu -= std::min(t.npu, joined);
    return t;
  };
  // The real profiler's candidates are simulations: the solver runs only those whose parts, each
  // timed alone, could still beat the best (the same choice as running all of them).
  const heterollm::CostFn bound = [&](const heterollm::Partition& c) {
    heterollm::PartTimes t = profiler_->alone(c);
    if (c.kind == heterollm::CutKind::kNpuOnly) t.npu -= std::min(t.npu, joined);
    return t;
  };
  const heterollm::CostFn coarse = [&](const heterollm::Partition& c) {
    heterollm::PartTimes t = profiler_->coarse(c);
    if (c.kind == heterollm::CutKind::kNpuOnly) t.npu -= std::min(t.npu, joined);
    return t;
  };
  // In its step (step_context.h), where the GPU is home: every instance of this op partitioned as
  // the candidate, the step's other groups as decided so far.
  if (in_step) p.in_context = [&](const heterollm::Partition& c) { return (*in_step)(c); };
  // That holds while DRAM's achievable peak does not grow with more masters streaming (a
  // what-if may make it grow: then every candidate runs).
  const auto& eff = soc.dram.concurrency_efficiency;
  const bool sharing_slows = std::is_sorted(eff.rbegin(), eff.rend());
  const bool bounded = !predictor_ && sharing_slows;
  const auto best_found = heterollm::solve(rows, k, n, p, cost, &all, bounded ? &bound : nullptr, bounded ? &coarse : nullptr);
  if (say) {
    std::size_t costed = 0;  // by the search: before the single-unit times are costed for the lines
    for (const auto& c : all) costed += c.bounded_only ? 0 : 1;
    const heterollm::Partition& best = shown ? *shown : best_found;
    const auto [gpu_only, npu_only] = heterollm::single_unit_times(all, p, cost);
    const std::string step = best.in_step ? fmt::format("; its step {:.1f} us", to_us(best.t_total)) : "";
    std::cerr << fmt::format("{} {}: {} {}x{}x{}: {} (T_gpu {:.1f} us, T_npu {:.1f} us, T_total {:.1f} us{}; gpu-only {:.1f} us, "
                             "npu-only {:.1f} us; {} candidates, {} costed)\n",
                             id(), decode ? "decode" : "prefill", "matmul", rows, k, n, best.describe(), to_us(best.t_gpu),
                             to_us(best.t_npu), to_us(best.t_part), step, to_us(gpu_only), to_us(npu_only), all.size(), costed);
  }
  return best_found;
}

namespace {
using runtime::kReservedJobsLimit;
}  // namespace

runtime::Plan HeteroLlm::plan(const hw::SocSpec& soc, const model::ModelConfig& m, const RequestShape& r) {
  runtime::Plan plan;
  std::vector<std::uint32_t> prev;  // the jobs the next op waits for
  std::int64_t open = -1;           // a job the next op on its unit may join (prev == {open})
  std::map<std::string, std::uint64_t> kinds;

  auto join_or_add = [&](kernels::Unit unit, const model::GraphOp& g) {
    if (open >= 0 && prev.size() == 1 && prev[0] == static_cast<std::uint32_t>(open)) {
      auto& j = plan.jobs[prev[0]];
      if (j.unit == unit && j.ops.back().phase == g.phase && j.ops.back().step == g.step) {
        j.ops.push_back(g);
        return;
      }
    }
    runtime::Job j;
    j.name = runtime::op_job_name(g);
    j.unit = unit;
    j.precision = runtime::Precision::kW4A16;
    j.ops.push_back(g);
    j.deps = prev;
    const auto i = plan.add(std::move(j));
    prev = {i};
    open = i;
  };
  // `real`: the op at the request's shape; `padded`: at the NPU's padded shape (prefill).
  auto add_ops = [&](const std::vector<model::GraphOp>& real, const std::vector<model::GraphOp>& padded) {
    decide_step(soc, m, real, padded);
    for (std::size_t i = 0; i < real.size();) {
      const model::GraphOp& g = real[i];
      const bool decode = g.phase == model::Phase::kDecode;
      const kernels::Unit home = !decode && options_.prefill_npu_home ? kernels::Unit::kNpu : kernels::Unit::kGpu;
      if (g.op.kind != model::OpKind::kMatMul) {
        join_or_add(home, home == kernels::Unit::kNpu ? padded[i] : g);
        ++i;
        continue;
      }
      std::uint64_t n = 0;
      const std::size_t e = heterollm::sibling_end(real, i, n);
      const std::vector<model::GraphOp> group(real.begin() + static_cast<std::ptrdiff_t>(i), real.begin() + static_cast<std::ptrdiff_t>(e));
      // hetero-layer decodes on the GPU (the NPU is slower at small sequence lengths).
      if (decode && !tensor_) {
        for (const auto& x : group) join_or_add(kernels::Unit::kGpu, x);
        i = e;
        continue;
      }
      // Unsplit on the NPU in prefill, the op runs inside the home graph at its padded rows.
      const heterollm::Partition& part = decide(soc, m, decode, g.op.m, g.op.k, n, decode ? 0 : padded[i].op.m);
      ++kinds[std::string(decode ? "decode " : "prefill ") + heterollm::cut_kind_name(part.kind)];
      if (!part.uses_npu() || !part.uses_gpu()) {
        // Whole on one unit: the NPU runs the padded rows inside the open graph.
        const kernels::Unit u = part.uses_npu() ? kernels::Unit::kNpu : kernels::Unit::kGpu;
        for (std::size_t o = i; o < e; ++o) join_or_add(u, u == kernels::Unit::kNpu && !decode ? padded[o] : real[o]);
        i = e;
        continue;
      }
      std::vector<std::uint32_t> next;
      bool have_npu = false;
      std::uint32_t first_npu = 0, last_npu = 0;
      for (auto& j : heterollm::partition_jobs(part, group)) {
        if (j.unit == kernels::Unit::kNpu) {
          j.deps = have_npu ? std::vector<std::uint32_t>{last_npu} : prev;
          last_npu = plan.add(std::move(j));
          if (!have_npu) first_npu = last_npu;
          have_npu = true;
        } else {
          j.deps = prev;
          // The standard path: one host thread drains the queue for the NPU part's input, then
          // enqueues the GPU part (which pays the restart).
          if (!options_.fast_sync && have_npu) j.start_deps = {first_npu};
          next.push_back(plan.add(std::move(j)));
        }
      }
      next.push_back(last_npu);
      prev = next;
      open = -1;
      i = e;
    }
  };
  auto add_sample = [&](model::Phase phase, std::uint64_t step) {
    runtime::Job j;
    j.unit = kernels::Unit::kCpu;
    j.precision = runtime::Precision::kFp32;
    j.name = std::string(phase == model::Phase::kPrefill ? "prefill" : "decode") + std::to_string(step) + ".sample";
    j.ops.push_back({sample_op(m, r.batch), phase, 0, step});
    j.deps = prev;
    const auto i = plan.add(std::move(j));
    prev = {i};
    open = -1;
    return i;
  };

  // The whole prompt at once: the GPU takes any length, the NPU's graphs a standard cover of the
  // prompt; the head over the last row only.
  // Float ops on the NPU run piped (the prompt rounded up to seq_align in standard pieces) when
  // that decomposes, else padded.
  if (!r.decode_only) {
    auto pieces = heterollm::pipe_pieces(r.prompt, options_.standard, options_.seq_align);
    const bool piped = !pieces.empty();
    if (!piped) pieces = heterollm::cover_pieces(r.prompt, options_.standard);
    std::uint64_t padded_rows = 0;
    for (auto v : pieces) padded_rows += v;
    // A seq_align given by hand can make the NPU's float ops run many times the prompt's rows, or
    // not decompose into standard lengths (then the cover pads instead): said, not left to be
    // found in the timing (an 8-token prompt at seq_align 100000: 540 s to the first token).
    if (options_.seq_align_set && seq_align_said_) {
      // (Once per run: a workload's thousands of requests would repeat it.)
    } else if (options_.seq_align_set && !piped) {
      seq_align_said_ = true;
      spdlog::warn("heterollm.seq_align={}: the prompt of {} tokens rounded up to it ({}) does not decompose into the standard lengths "
                   "(largest first); the NPU's graphs take the standard cover of the prompt ({} rows) instead",
                   options_.seq_align, r.prompt, (r.prompt + options_.seq_align - 1) / options_.seq_align * options_.seq_align, padded_rows);
    } else if (options_.seq_align_set && padded_rows >= 2 * r.prompt && padded_rows > options_.standard.front()) {
      seq_align_said_ = true;
      spdlog::warn("heterollm.seq_align={}: the NPU's float ops run the prompt of {} tokens as {} rows ({:.1f}x)", options_.seq_align, r.prompt,
                   padded_rows, static_cast<double>(padded_rows) / static_cast<double>(r.prompt));
    }
    const auto real = model::prefill_graph(m, {r.prompt, 0, r.batch, false, false}, false);
    const auto padded = model::prefill_graph(m, {padded_rows, 0, r.batch, false, false}, false);
    if (real.size() != padded.size()) throw std::logic_error("hetero: padded prefill graph differs in shape");
    add_ops(real, padded);
    plan.prefill_end = add_sample(model::Phase::kPrefill, 0);
  }
  // Every decode step has the same ops, so the same jobs: a planned step is the template of the
  // later ones (decode_step_copy.h; attention's context is what they change).
  // The template is the request's: made again by a request's first plan (the one with its
  // prompt) and used by its decode windows; one made for another SoC, model or request shape is
  // not used.
  if (step_template_ && (!r.decode_only || !(step_template_->soc == &soc && step_template_->model == &m &&
                                             step_template_->prompt == r.prompt && step_template_->batch == r.batch))) {
    step_template_.reset();
  }
  for (std::uint64_t s = r.first_step; s < r.first_step + r.decode; ++s) {
    const std::size_t before = plan.jobs.size();
    const auto step = model::decode_step_graph(m, r.prompt, s, r.batch);
    if (step_template_ && step_template_->copier.append(plan, s, step)) {
      for (const auto& [kind, count] : step_template_->kinds) kinds[kind] += count;
      plan.decode_step_end.push_back(static_cast<std::uint32_t>(plan.jobs.size() - 1));
      prev = {plan.decode_step_end.back()};
      open = -1;
    } else {
      const auto kinds_before = kinds;
      add_ops(step, step);
      plan.decode_step_end.push_back(add_sample(model::Phase::kDecode, s));
      if (!step_template_ || !step_template_->copier.ok()) {
        std::map<std::string, std::uint64_t> step_kinds = kinds;  // the template step's partitions
        for (const auto& [kind, count] : kinds_before) step_kinds[kind] -= count;
        std::erase_if(step_kinds, [](const auto& kind) { return kind.second == 0; });  // (the prompt's cuts)
        step_template_.emplace(StepTemplate{&soc, &m, r.prompt, r.batch,
                                            runtime::DecodeStepCopier(plan, static_cast<std::uint32_t>(before),
                                                                      static_cast<std::uint32_t>(plan.jobs.size()), s, step),
                                            std::move(step_kinds)});
      }
    }
    // Every decode step has the same ops, so the same jobs: room for the rest at once (the jobs
    // are the plan's bulk; grown by doubling they were copied and faulted in twice over). Only
    // for plans of moderate size: a huge one grows step by step under Plan::add's memory check.
    if (s == r.first_step) {
      const std::uint64_t total = plan.jobs.size() + (plan.jobs.size() - before) * (r.decode - 1);
      if (total <= kReservedJobsLimit) plan.jobs.reserve(total);
    }
  }
  // A window of a long decode reports the whole request's partitions: every decode step has the
  // same matmul shapes, so the same cuts (decisions are cached by shape).
  if (r.decode > 0 && r.total_decode() != r.decode) {
    for (auto& [kind, count] : kinds) {
      if (kind.rfind("decode ", 0) == 0) count = count / r.decode * r.total_decode();
    }
  }
  // NPU graphs are named by their ops' shapes (every layer shares its graphs) and built offline
  // (HeteroLLM prepares the standard-length graphs ahead of requests).
  std::set<std::string> graphs;
  for (auto& j : plan.jobs) {
    if (j.unit != kernels::Unit::kNpu) continue;
    if (j.npu_graph.empty()) {
      std::string sig = j.ops.front().phase == model::Phase::kDecode ? "decode" : "prefill";
      for (const auto& g : j.ops) sig += fmt::format("|{}:{}:{}:{}:{}", g.op.name, g.op.m, g.op.k, g.op.n, g.op.elements);
      j.npu_graph = fmt::format("heterollm/{}ops/{:016x}", j.ops.size(), std::hash<std::string>{}(sig));
    }
    graphs.insert(j.npu_graph);
  }
  plan.prepared_graphs.assign(graphs.begin(), graphs.end());

  nlohmann::ordered_json decisions = nlohmann::ordered_json::array();
  for (const auto& [key, p] : decisions_) {
    const auto& [decode, rows, k, n, npu_rows] = key;
    decisions.push_back({{"phase", decode ? "decode" : "prefill"},
                         {"m", rows},
                         {"k", k},
                         {"n", n},
                         {"npu_only_rows", npu_rows},
                         {"partition", p.describe()},
                         {"t_gpu_us", to_us(p.t_gpu)},
                         {"t_npu_us", to_us(p.t_npu)},
                         {"t_total_us", to_us(p.t_part)}});
    if (p.in_step) decisions.back()["t_step_us"] = to_us(p.t_total);
  }
  plan.info = {{"level", tensor_ ? "tensor" : "layer"},
               {"profiler", options_.predict ? "predict" : "real"},
               {"fast_sync", options_.fast_sync},
               {"standard_lengths", options_.standard},
               {"row_align", options_.row_align},
               {"seq_align", options_.seq_align},
               {"matmul_partitions", kinds},
               {"npu_graphs", graphs.size()},
               {"decisions", decisions}};
  return plan;
}

void register_heterollm(SystemRegistry& r) {
  r.add("hetero-layer", [] { return std::make_unique<HeteroLlm>(false); });
  r.add("hetero-tensor", [] { return std::make_unique<HeteroLlm>(true); });
}

}  // namespace socsim::systems
