#include "sim/runtime/executor.h"

#include <algorithm>

#include "sim/hw/npu/graph_costs.h"
#include "sim/hw/npu/hmx_gemm.h"
#include "sim/runtime/graph_dataflow.h"
#include "sim/runtime/job_picker.h"
#include "sim/runtime/op_lowering.h"
#include "sim/runtime/work_runner.h"

namespace socsim::runtime {

const char* unit_name(kernels::Unit u) {
  switch (u) {
    case kernels::Unit::kNpu: return "npu";
    case kernels::Unit::kGpu: return "gpu";
    case kernels::Unit::kCpu: return "cpu";
  }
  return "?";
}

Executor::Executor(hw::Soc& soc, const model::ModelConfig& model, SyncPolicy sync, report::TraceRecorder* trace,
                   lowering::LoweringCache* shared_lowering, bool bound_lowering)
    : soc_(soc),
      model_(model),
      sync_(sync),
      trace_(trace),
      poll_cluster_(hw::cluster_of_class(soc.spec().cpu, hw::CoreClass::kMid)),
      own_lowering_(model, soc.spec().npu),
      lowering_(shared_lowering ? *shared_lowering : own_lowering_),
      bound_lowering_(bound_lowering) {}

Tick& OpTimes::operator[](const OpTimeKey& key) {
  const auto same_views = [&](const OpTimeKey& k) {
    return k.unit.data() == key.unit.data() && k.unit.size() == key.unit.size() && k.kind.data() == key.kind.data() &&
           k.kind.size() == key.kind.size();
  };
  const auto a = reinterpret_cast<std::uintptr_t>(key.unit.data()), b = reinterpret_cast<std::uintptr_t>(key.kind.data());
  std::uint32_t& found = found_[((a ^ (b * 0x9E3779B97F4A7C15ull)) >> 58) & (found_.size() - 1)];
  if (found != 0 && same_views(entries_[found - 1].first)) return entries_[found - 1].second;
  const auto at = [&](std::size_t i) -> Tick& {
    found = static_cast<std::uint32_t>(i + 1);
    return entries_[i].second;
  };
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (same_views(entries_[i].first)) return at(i);
  }
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].first.unit == key.unit && entries_[i].first.kind == key.kind) return at(i);
  }
  entries_.emplace_back(key, Tick{0});
  return at(entries_.size() - 1);
}

std::map<OpTimeKey, Tick> OpTimes::sorted() const {
  std::map<OpTimeKey, Tick> out;
  for (const auto& [key, t] : entries_) out[key] += t;
  return out;
}

void Executor::account(const char* unit, const char* kind, Tick start) {
  op_time_[{unit, kind}] += soc_.sim().now() - start;
}

Task<> Executor::run(const Plan& plan) {
  Simulator& sim = soc_.sim();
  for (const auto& g : plan.prepared_graphs) built_graphs_.insert(g);
  // A softmax op lowers as the middle part of its layer's attention kernel; its OpDesc carries
  // only an element count, so the layer's shape comes from its attn_scores op.
  layer_attention_.clear();
  for (const auto& job : plan.jobs) {
    for (const auto& g : job.ops) {
      if (g.op.kind != model::OpKind::kAttnScores) continue;
      layer_attention_.emplace(std::tuple{g.phase, g.step, g.layer}, attention_shape_of(g.op, model_));
    }
  }
  plan_ = &plan;
  began_.clear();
  gpu_flag_.clear();
  gpu_flag_store_.clear();
  start_.assign(plan.jobs.size(), 0);
  end_.assign(plan.jobs.size(), 0);
  ready_.assign(plan.jobs.size(), 0);
  npu_engine_busy_.assign(plan.jobs.size(), 0);
  cpu_stalled_.assign(plan.jobs.size(), 0);
  dram_bytes_at_start_.assign(plan.jobs.size(), 0);
  dram_bytes_at_end_.assign(plan.jobs.size(), 0);
  own_dram_bytes_.assign(plan.jobs.size(), 0);
  npu_in_flight_ = 0;
  npu_overlapped_ = false;
  gpu_mark_.assign(plan.jobs.size(), 0);
  gpu_predicted_end_.assign(plan.jobs.size(), 0);
  lanes_.clear();
  dependents_ = dependents_of(plan);
  done_flags_.assign(plan.jobs.size(), false);
  started_.assign(plan.jobs.size(), false);
  // Triggers only where something waits on them: a plan of 166k jobs (shadowAttn at batch 16)
  // held three per job.
  began_flags_.assign(plan.jobs.size(), false);
  began_.resize(plan.jobs.size());
  waiting_.assign(plan.jobs.size(), {});
  dep_cursor_.assign(plan.jobs.size(), 0);
  wake_.clear();
  wake_.reserve(plan.jobs.size());
  for (std::uint32_t i = 0; i < plan.jobs.size(); ++i) wake_.push_back({this, i});
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    const bool gpu = plan.jobs[i].unit == kernels::Unit::kGpu;
    gpu_flag_.push_back(sync_.fast && gpu ? &gpu_flag_store_.emplace_back(sim) : nullptr);
    for (auto d : plan.jobs[i].start_deps) {
      if (d < i && !began_[d]) began_[d] = std::make_unique<Trigger>(sim);
    }
  }
  WaitGroup all(sim);
  all.add(plan.jobs.size());
  all_ = &all;
  for (std::uint32_t i = 0; i < plan.jobs.size(); ++i) {
    for (auto d : plan.jobs[i].deps) {
      if (d >= i) throw std::logic_error("job '" + plan.jobs[i].name + "' depends on a later job");
    }
    for (auto d : plan.jobs[i].start_deps) {
      if (d >= i) throw std::logic_error("job '" + plan.jobs[i].name + "' waits for a later job to begin");
    }
  }
  // The plan's pinned cores, for its run, set once its checks passed (a plan stopped midway left
  // its own: the next plan replaces them).
  soc_.cpu().set_pins(plan.cpu_pins);
  // Each job looks at its dependencies at the current instant, in plan order (see waiting_).
  sim.reserve_events(plan.jobs.size());
  for (auto& w : wake_) sim.schedule_at(sim.now(), &Executor::wake, &w);
  co_await all.wait();
  all_ = nullptr;
  soc_.cpu().set_pins({});
  // Attention's lowering changes with the KV length, so a long decode adds entries every step
  // that no later step asks for; between plans (no job holds a lowered work) the cache starts
  // over past a bound, keeping a decode run window by window in bounded memory. Lowering is a
  // pure function: same results. After the plan's run, not before it: the entries its planning
  // lowered (JobProfiler through System::shared_lowering) are the ones its jobs look up.
  if (bound_lowering_) bound_lowering_cache(lowering_);
}

void Executor::bound_lowering_cache(lowering::LoweringCache& cache) {
  if (cache.size() > kLoweringCacheLimit || cache.npu_bytes() > kLoweringCacheNpuBytes) cache.clear();
}

void Executor::wake(void* ctx) {
  const auto* w = static_cast<const Wake*>(ctx);
  w->ex->advance(w->job);
}

void Executor::advance(std::uint32_t i) {
  const Job& job = plan_->jobs[i];
  for (std::uint32_t& c = dep_cursor_[i]; c < job.deps.size(); ++c) {
    const std::uint32_t d = job.deps[c];
    if (!done_flags_[d]) {
      waiting_[d].push_back(i);
      return;
    }
  }
  // Its dependencies have finished: the job starts, in this event. (A job waiting for another to
  // begin, HeteroLLM's standard path, waits as a process: few jobs do.)
  auto job_process = [](Executor& ex, const Plan& p, std::uint32_t j, WaitGroup& wg) -> Task<> {
    for (auto d : p.jobs[j].start_deps) co_await ex.began_[d]->wait();
    co_await ex.run_job(p, j);
    wg.done();
  };
  soc_.sim().spawn_now(job_process(*this, *plan_, i, *all_), job.name);
}

void Executor::finished(std::uint32_t job) {
  // Wakes the jobs waiting for this one, in the order they began waiting, at the current instant.
  WaitList woken = std::move(waiting_[job]);
  waiting_[job] = WaitList{};  // its memory goes with it
  for (auto i : woken) soc_.sim().schedule_at(soc_.sim().now(), &Executor::wake, &wake_[i]);
}

LaneGate& Executor::lane(const Plan& plan, const std::string& name) {
  auto& gate = lanes_[name];
  if (!gate) {
    gate = std::make_unique<LaneGate>(soc_.sim(), [this, &plan](const std::vector<std::uint32_t>& waiting) {
      return pick_job(plan.pick, plan, dependents_, waiting, done_flags_, started_);
    });
  }
  return *gate;
}

Task<> Executor::run_job(const Plan& plan, std::uint32_t index) {
  const Job& job = plan.jobs[index];
  // Its dependencies have finished (and its start dependencies begun): see run().
  started_[index] = true;
  LaneGate* gate = job.lane.empty() ? nullptr : &lane(plan, job.lane);
  if (gate) co_await gate->acquire(index);
  start_[index] = soc_.sim().now();
  dram_bytes_at_start_[index] = soc_.dram().total_bytes();
  const bool npu_job = job.unit == kernels::Unit::kNpu && soc_.spec().has_npu;
  const Tick engines_before = npu_job ? soc_.npu().busy().busy(soc_.sim().now()) : 0;
  const std::uint64_t npu_bytes_before = npu_job ? soc_.dram().port_bytes(soc_.npu().port()) : 0;
  if (npu_job && ++npu_in_flight_ > 1) npu_overlapped_ = true;
  // With fast synchronization an NPU graph carries its own synchronization point (HeteroLLM 4.1:
  // the runtime inserts explicit synchronization points in the graph; 4.2: the polling host
  // notifies the NPU at once), so the host calls the graph as soon as the NPU is free and the
  // producers are enqueued, and the call's fixed cost runs while the producers finish; the graph
  // starts computing when both are done. Everywhere else the host calls after the hand-over.
  // Reconstruction (README): the paper does not say when the call is issued.
  const bool early_call = sync_.fast && job.unit == kernels::Unit::kNpu && !job.npu_graph.empty();
  if (early_call) {
    TaskList both;
    both.push_back(hand_overs(plan, job));
    both.push_back(npu_call(job, npu_graph_call(job)));
    co_await when_all(soc_.sim(), std::move(both));
  } else {
    co_await hand_overs(plan, job);
  }
  ready_[index] = soc_.sim().now();
  began_flags_[index] = true;
  if (began_[index]) began_[index]->fire();
  if (job.storage_read_bytes > 0) {
    const Tick start = soc_.sim().now();
    co_await soc_.storage().read(job.storage_read_bytes);
    account(unit_name(job.unit), "storage_read", start);
  }
  co_await run_ops(job, index, early_call);
  // A lane is one processor running one job at a time: a GPU job holds it until its kernels
  // have run, not only until they are enqueued.
  if (gate && job.unit == kernels::Unit::kGpu) co_await soc_.gpu().wait_completed(soc_.gpu().enqueued());
  end_[index] = soc_.sim().now();
  if (npu_job) {
    npu_engine_busy_[index] = soc_.npu().busy().busy(end_[index]) - engines_before;
    own_dram_bytes_[index] = soc_.dram().port_bytes(soc_.npu().port()) - npu_bytes_before;
    --npu_in_flight_;
  }
  dram_bytes_at_end_[index] = soc_.dram().total_bytes();
  done_flags_[index] = true;
  if (gate) gate->release();
  finished(index);
}

Task<> Executor::hand_overs(const Plan& plan, const Job& job) {
  // One hand-over per producing unit (the latest producer on it covers the earlier ones: units
  // complete their work in order).
  for (kernels::Unit u : {kernels::Unit::kNpu, kernels::Unit::kGpu, kernels::Unit::kCpu}) {
    if (u == job.unit) continue;
    const Job* last = nullptr;
    std::uint32_t last_index = 0;
    for (auto d : job.deps) {
      if (plan.jobs[d].unit == u) last = &plan.jobs[d], last_index = d;
    }
    if (last) co_await hand_over(*last, last_index, job);
  }
  // The first jobs of a plan that continues the previous one (a decode window).
  if (carry_ && job.deps.empty() && job.start_deps.empty() && carry_->unit != job.unit) co_await hand_over(*carry_, kNoJob, job);
}

Executor::GraphCall Executor::npu_graph_call(const Job& job) {
  GraphCall c;
  for (const auto& g : job.ops) {
    const NpuOpWork& l = lowering_.npu(g.op, job.precision, attention_of(g), job.npu_kernels);
    c.nodes += l.graph_nodes;
    c.io_bytes += l.graph_io_bytes;
  }
  return c;
}

Task<> Executor::npu_call(const Job& job, GraphCall call) {
  co_await build_graph_if_new(job);
  const Tick start = soc_.sim().now();
  const std::uint64_t client_io_bytes = job.npu_client_io ? call.io_bytes : 0;
  co_await soc_.npu().graph_call(call.nodes, job.npu_graph, client_io_bytes);
  account("npu", "graph_call", start);
}

Tick Executor::job_complete(std::uint32_t job) const {
  if (sync_.fast && gpu_flag_.at(job) && gpu_flag_[job]->fired()) return std::max(end_.at(job), gpu_flag_[job]->fired_at());
  return end_.at(job);
}

Task<> Executor::set_gpu_flag(std::uint64_t mark, Trigger& flag) {
  co_await soc_.gpu().wait_completed(mark);
  flag.fire();
}

Task<> Executor::hand_over(const Job& from, std::uint32_t from_index, const Job& to) {
  auto& gpu = soc_.gpu();
  if (sync_.fast) {
    // Shared buffers, no drain: from the GPU, sleep the predicted remaining kernel time (whole
    // sleep periods only, so the host never oversleeps), then spin on the job's flag.
    const Tick start = soc_.sim().now();
    Tick waited_from = start;  // sync is what follows the producer's completion (as below)
    if (from.unit == kernels::Unit::kGpu && from_index != kNoJob && !gpu_flag_[from_index]->fired()) {
      const Tick g = soc_.spec().cpu.sleep_granularity;
      const Tick predicted = gpu_predicted_end_[from_index] > start ? gpu_predicted_end_[from_index] - start : 0;
      const Tick nap = g > 0 ? predicted / g * g : predicted;
      if (nap > 0) co_await soc_.cpu().sleep(nap);
      co_await soc_.cpu().poll_until(*gpu_flag_[from_index], poll_cluster_->name);
      waited_from = std::max(start, gpu_flag_[from_index]->fired_at());
    }
    if (soc_.sim().now() > waited_from) account(unit_name(to.unit), "sync", waited_from);
    co_return;
  }
  // Waiting for the GPU's queued kernels is the GPU's time, not synchronization: wait for them
  // first, then time what the hand-over itself costs (queue drain flag, copies).
  if (from.unit == kernels::Unit::kGpu) co_await gpu.wait_completed(gpu.enqueued());
  const Tick start = soc_.sim().now();
  // Bytes crossing: the last op's output (an activation; the copy's fixed cost dominates).
  auto output_bytes = [](const Job& j) -> std::uint64_t {
    if (j.ops.empty()) return 0;
    const auto& op = j.ops.back().op;
    const std::uint64_t elems = op.elements ? op.elements : op.batch * op.m * op.n;
    return elems * 2;
  };
  if (from.unit == kernels::Unit::kGpu) {
    co_await gpu_sync(soc_.sim().now());  // the host waits for the queue to drain
    if (!sync_.shared_buffers) co_await gpu.copy(output_bytes(from));
  }
  if (to.unit == kernels::Unit::kGpu && !sync_.shared_buffers) co_await gpu.copy(output_bytes(from));
  if (soc_.sim().now() > start) account(unit_name(to.unit), "sync", start);
}

Task<> Executor::gpu_sync(Tick called) {
  const Tick earliest = called + soc_.spec().gpu.sync_fixed;
  co_await soc_.gpu().finish();
  if (soc_.sim().now() < earliest) co_await soc_.sim().delay(earliest - soc_.sim().now());
}

Task<> Executor::build_graph_if_new(const Job& job) {
  if (job.npu_graph.empty() || built_graphs_.count(job.npu_graph)) co_return;
  built_graphs_.insert(job.npu_graph);
  ++graphs_built_;
  std::vector<model::OpDesc> ops;
  for (const auto& g : job.ops) ops.push_back(g.op);
  const auto size = hw::graph_size(ops, precision_weight_bits(job.precision), precision_activation_bytes(job.precision));
  const auto& spec = soc_.spec().npu.graph;
  const Tick start = soc_.sim().now();
  // Graph preparation runs in the vendor runtime on the host (a prime core: the fastest cluster,
  // hw::core_class) before the first execution.
  co_await soc_.cpu().hold(hw::cluster_of_class(soc_.spec().cpu, hw::CoreClass::kPrime)->name,
                           hw::graph_build_time(spec, size) + hw::graph_optimize_time(spec, size), "graph build " + job.npu_graph);
  if (trace_) trace_->span("npu.graph_build", job.npu_graph, start, soc_.sim().now());
  account("npu", "graph_build", start);
}

const kernels::AttentionShape* Executor::attention_of(const model::GraphOp& g) const {
  if (g.op.kind != model::OpKind::kSoftmax) return nullptr;
  const auto it = layer_attention_.find({g.phase, g.step, g.layer});
  return it == layer_attention_.end() ? nullptr : &it->second;
}

Task<> Executor::run_graph_nodes(const Job& job, const std::vector<const NpuOpWork*>& lowered) {
  std::vector<model::OpDesc> ops;
  ops.reserve(job.ops.size());
  for (const auto& op : job.ops) ops.push_back(op.op);
  const auto nodes = graph_nodes(ops, lowered);
  std::vector<Tick> node_time;
  co_await run_graph_dataflow(soc_.npu(), nodes, lowered, node_time);
  for (std::size_t i = 0; i < nodes.size(); ++i) op_time_[{"npu", model::op_kind_name(job.ops[i].op.kind)}] += node_time[i];
}

Task<> Executor::run_ops(const Job& job, std::uint32_t index, bool called) {
  Simulator& sim = soc_.sim();
  switch (job.unit) {
    case kernels::Unit::kNpu: {
      // The ops' kernels without their own graph calls: the job is one call of its graph.
      std::vector<const NpuOpWork*> lowered;
      lowered.reserve(job.ops.size());
      GraphCall call;
      for (const auto& g : job.ops) {
        lowered.push_back(&lowering_.npu(g.op, job.precision, attention_of(g), job.npu_kernels));
        call.nodes += lowered.back()->graph_nodes;
        call.io_bytes += lowered.back()->graph_io_bytes;
      }
      if (!job.npu_graph.empty() && !called) co_await npu_call(job, call);
      if (job.npu_graph.empty() || job.ops.size() < 2) {
        // A custom kernel per op, each handing over to the next (TTS's polled shared memory).
        for (std::size_t i = 0; i < job.ops.size(); ++i) {
          const Tick start = sim.now();
          co_await run_npu_work(soc_.npu(), lowered[i]->work, nullptr, &lowered[i]->signature);
          account("npu", model::op_kind_name(job.ops[i].op.kind), start);
        }
      } else {
        co_await run_graph_nodes(job, lowered);
      }
      break;
    }
    case kernels::Unit::kGpu: {
      // Host-side: kernels are enqueued; they run on the GPU's in-order queue. Time per op kind
      // is the GPU's own execution time of each kernel.
      for (const auto& g : job.ops) {
        for (const auto& kernel : lowering_.gpu(g.op, job.precision, attention_of(g)).kernels) {
          // Per-kind GPU time is the kernel's uncontended time (compute or its own DRAM traffic
          // at the GPU's port rate, whichever binds); the queue's real timeline is in the trace.
          const Tick memory = seconds_to_ticks_ceil(static_cast<double>(kernel.dram_bytes) / soc_.spec().gpu.port_bandwidth);
          const Tick compute = soc_.gpu().compute_time(kernel);
          const Tick own = std::max(compute, memory);
          op_time_[{"gpu", model::op_kind_name(g.op.kind)}] += own;
          own_dram_bytes_[index] += kernel.dram_bytes;
          // (Within max_allocation, the submission's awaiter: no coroutine frame per kernel.)
          if (soc_.gpu().exceeds_max_allocation(kernel)) {
            co_await soc_.gpu().enqueue(kernel, compute);
          } else {
            co_await soc_.gpu().submit(kernel, compute);
          }
          if (sync_.flush_each_gpu_kernel) {
            // The host waits for this kernel before the decider dispatches the next (SyncPolicy);
            // what the wait lasts beyond the kernel's own run is synchronization.
            const Tick call = sim.now();
            co_await soc_.gpu().wait_completed(soc_.gpu().enqueued());
            const Tick done = sim.now();
            co_await gpu_sync(call);  // drains the queue: the next kernel restarts
            if (sim.now() > done) account("gpu", "sync", done);
          }
          // The prediction a fast sync sleeps on: identical layers run identical kernels, so the
          // uncontended kernel times, each queued behind what the GPU was predicted to be doing.
          if (sync_.fast) gpu_tail_predicted_ = std::max(gpu_tail_predicted_, sim.now()) + own;
        }
      }
      if (sync_.fast) {
        gpu_predicted_end_[index] = gpu_tail_predicted_;
        gpu_mark_[index] = soc_.gpu().enqueued();
        flag_name_.assign(job.name).append(".flag");  // (into a kept string: one per GPU job)
        sim.spawn(set_gpu_flag(gpu_mark_[index], *gpu_flag_[index]), flag_name_);
      }
      break;
    }
    case kernels::Unit::kCpu: {
      for (const auto& g : job.ops) {
        const Tick start = sim.now();
        const kernels::CpuWork& work = lowering_.cpu(g.op, job.precision, job.cpu_threads, attention_of(g), job.cpu_engine);
        for (const auto& task : work.tasks) {
          own_dram_bytes_[index] += task.dram_bytes;
          if (job.cpu_cluster.empty()) {
            co_await soc_.cpu().run_on_fastest(task, work.threads, &cpu_stalled_[index]);
          } else {
            co_await soc_.cpu().run(task, job.cpu_cluster, work.threads, &cpu_stalled_[index]);
          }
        }
        account("cpu", model::op_kind_name(g.op.kind), start);
      }
      break;
    }
  }
}

}  // namespace socsim::runtime
