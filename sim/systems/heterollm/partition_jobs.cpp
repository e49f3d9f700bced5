#include "sim/systems/heterollm/partition_jobs.h"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <string>

#include "sim/hw/gpu/gpu_compute_model.h"
#include "sim/hw/npu/graph_costs.h"
#include "sim/hw/soc.h"
#include "sim/runtime/executor.h"
#include "sim/runtime/lowering/npu_work_bound.h"
#include "sim/runtime/watchdog_report.h"

namespace socsim::systems::heterollm {

namespace {

// `f(rows, count)` for each run of equal consecutive NPU pieces of `p` (none when it has no NPU part).
template <typename F>
void for_each_run(const Partition& p, F&& f) {
  const auto& pieces = p.npu_pieces;
  for (std::size_t i = 0; p.uses_npu() && i < pieces.size();) {
    std::size_t e = i + 1;
    while (e < pieces.size() && pieces[e] == pieces[i]) ++e;
    f(pieces[i], static_cast<std::uint64_t>(e - i));
    i = e;
  }
}

}  // namespace

std::vector<runtime::Job> partition_jobs(const Partition& p, const std::vector<model::GraphOp>& group) {
  if (group.empty()) throw std::invalid_argument("partition_jobs: empty group");
  const model::GraphOp& g0 = group.front();
  const std::string base = std::string(g0.phase == model::Phase::kPrefill ? "prefill" : "decode") + std::to_string(g0.step) +
                           ".L" + std::to_string(g0.layer) + ".";
  // Each op's share of the concatenated columns: the NPU takes columns [0, npu_cols).
  // (A plan partitions every matmul group of every step: nothing here allocates per op that
  // need not.)
  boost::container::small_vector<std::uint64_t, 4> npu_cols, gpu_cols;
  std::uint64_t c0 = 0, total = 0;
  for (const auto& g : group) total += g.op.n;
  if (total != p.n) throw std::invalid_argument("partition_jobs: the group's columns differ from the partition's");
  const bool row_cut = p.kind == CutKind::kRow || p.kind == CutKind::kHybrid;
  for (const auto& g : group) {
    const std::uint64_t c1 = c0 + g.op.n;
    if (row_cut) {
      const std::uint64_t npu = p.uses_npu() ? (std::min(c1, p.npu_cols) > c0 ? std::min(c1, p.npu_cols) - c0 : 0) : 0;
      npu_cols.push_back(npu);
      gpu_cols.push_back(p.uses_gpu() ? g.op.n - npu : 0);
    } else {
      npu_cols.push_back(p.uses_npu() ? g.op.n : 0);
      gpu_cols.push_back(p.uses_gpu() ? g.op.n : 0);
    }
    c0 = c1;
  }
  auto matmul = [](const model::GraphOp& g, std::string name, std::uint64_t rows, std::uint64_t cols) {
    model::GraphOp part = g;
    part.op.name = std::move(name);
    part.op.m = rows, part.op.n = cols;
    part.op.weight_params = g.op.k * cols;
    return part;
  };
  std::vector<runtime::Job> jobs;
  jobs.reserve((p.uses_npu() ? p.npu_pieces.size() : 0) + (p.uses_gpu() ? 1 : 0));
  for (std::size_t i = 0; p.uses_npu() && i < p.npu_pieces.size(); ++i) {
    runtime::Job j;
    j.unit = kernels::Unit::kNpu;
    j.precision = runtime::Precision::kW4A16;
    j.ops.reserve(group.size());
    // (Appended, not formatted: a plan partitions every matmul of every step.)
    std::string graph;
    graph.reserve(16 + 32 * group.size());
    graph.append("heterollm/matmul");
    for (std::size_t o = 0; o < group.size(); ++o) {
      if (npu_cols[o] == 0) continue;
      const std::string name = i == 0 ? group[o].op.name : group[o].op.name + ".npu_piece" + std::to_string(i);
      j.ops.push_back(matmul(group[o], name, p.npu_pieces[i], npu_cols[o]));
      graph.append("/").append(std::to_string(p.npu_pieces[i])).append("x").append(std::to_string(p.k)).append("x").append(std::to_string(npu_cols[o]));
    }
    j.name = base + j.ops.front().op.name;
    j.npu_graph = std::move(graph);
    jobs.push_back(std::move(j));
  }
  if (p.uses_gpu()) {
    runtime::Job j;
    j.unit = kernels::Unit::kGpu;
    j.precision = runtime::Precision::kW4A16;
    j.ops.reserve(group.size());
    for (std::size_t o = 0; o < group.size(); ++o) {
      if (gpu_cols[o] == 0) continue;
      const std::string name = npu_cols[o] > 0 ? group[o].op.name + ".gpu_part" : group[o].op.name;
      j.ops.push_back(matmul(group[o], name, p.gpu_rows, gpu_cols[o]));
    }
    j.name = base + j.ops.front().op.name;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

PartTimes PartitionProfiler::time(const Partition& p) {
  ProfileKey key{p.k, p.npu_cols, p.gpu_rows, p.gpu_cols, p.uses_npu(), p.npu_pieces};
  if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
  runtime::Plan plan;
  model::GraphOp g;
  g.op = {"profile", model::OpKind::kMatMul, p.m, p.k, p.n, 1, 0, p.k * p.n};
  std::uint32_t last_npu = 0, gpu = 0;
  bool has_npu = false, has_gpu = false;
  for (auto& j : partition_jobs(p, {g})) {
    if (j.unit == kernels::Unit::kNpu) {
      if (has_npu) j.deps.push_back(last_npu);
      plan.prepared_graphs.push_back(j.npu_graph);
      last_npu = plan.add(std::move(j));
      has_npu = true;
    } else {
      gpu = plan.add(std::move(j));
      has_gpu = true;
    }
  }
  if (!reuse_soc_ || !profile_soc_ || profile_soc_runs_ >= kRunsPerSoc) {
    profile_soc_.reset();  // (before its simulator)
    profile_sim_ = std::make_unique<Simulator>();
    profile_soc_ = std::make_unique<hw::Soc>(*profile_sim_, soc_, nullptr);
    profile_soc_runs_ = 0;
  }
  ++profile_soc_runs_;
  Simulator& sim = *profile_sim_;
  hw::Soc& soc = *profile_soc_;
  const Tick start = sim.now();
  runtime::SyncPolicy sync;
  sync.shared_buffers = true;
  sync.fast = true;  // no hand-overs here; fast mode records the GPU part's completion
  // The cache is bounded here, before the run, not by the executor after it: coarse() reads the
  // entry this run lowers (a GPU-only part's op) once the run has ended.
  runtime::Executor::bound_lowering_cache(lowering_);
  PartTimes t;
  try {
    runtime::Executor ex(soc, model_, sync, nullptr, &lowering_, false);
    sim.spawn(ex.run(plan), "profile");
    runtime::check_run_finished(sim.run(), sim, soc, &ex);
    if (has_npu) t.npu = ex.job_end(last_npu) - start;
    if (has_gpu) t.gpu = ex.job_complete(gpu) - start;
  } catch (const TimeOverflow&) {
    profile_soc_.reset();
    profile_sim_.reset();
    // Once more on a fresh SoC, from time 0: the kept SoC's clock holds the runs before, and
    // durations near the 64-bit picosecond limit (a 6,000,000 s graph call) overflow it where a
    // fresh SoC's does not; there it fails as a fresh SoC always did. Only this failure: an
    // interrupt (Python's KeyboardInterrupt, taken from the interpreter when polled) or a memory
    // limit must end the run, not start it again.
    if (start != 0) return time(p);
    throw;
  } catch (...) {
    profile_soc_.reset();  // a run that did not end cleanly leaves nothing for the next
    profile_sim_.reset();
    throw;
  }
  cache_.emplace(std::move(key), t);
  return t;
}

PartitionProfiler::ShapeFacts& PartitionProfiler::facts(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) {
  static_assert((kFactsSlots & (kFactsSlots - 1)) == 0, "a power of two: the slot is the hash's low bits");
  if (facts_.empty()) facts_.resize(kFactsSlots);
  const Shape shape{rows, k, cols};
  FactsSlot& slot = facts_[hash_fields({rows, k, cols}) & (kFactsSlots - 1)];
  if (!slot.used || !(slot.shape == shape)) slot = FactsSlot{shape, true, {}};
  return slot.facts;
}

PartTimes PartitionProfiler::coarse(const Partition& p) {
  PartTimes t;
  if (p.uses_gpu()) {
    std::optional<Tick>& known = facts(p.gpu_rows, p.k, p.gpu_cols).gpu_coarse;
    if (!known) {
      // The op alone()'s GPU-only run lowers (partition_jobs keeps the name of a GPU-only part), so
      // both read one lowering-cache entry.
      const model::OpDesc op{"profile", model::OpKind::kMatMul, p.gpu_rows, p.k, p.gpu_cols, 1, 0, p.k * p.gpu_cols};
      // The host submits the kernels one after another (each pays gpu.submit); the in-order queue
      // starts one when it is submitted and the one before has ended. A short kernel does not hide
      // the next submission.
      Tick submitted = 0, end = 0;
      gpu_queue_times(op, nullptr, scratch_);  // (into a kept vector: coarse() runs per new shape)
      for (const Tick queue : scratch_) {
        submitted += soc_.gpu.submit;
        end = std::max(end, submitted) + queue;
      }
      known = end;
    }
    t.gpu = *known;
  }
  // Equal pieces, each bounded once (a long prompt in short pieces has thousands of one length).
  for_each_run(p, [&](std::uint64_t rows, std::uint64_t count) { t.npu += static_cast<Tick>(count) * npu_piece_bound(rows, p.k, p.npu_cols); });
  return t;
}

std::vector<Tick> PartitionProfiler::gpu_queue_times(const model::OpDesc& op, const kernels::AttentionShape* attention) {
  std::vector<Tick> out;
  gpu_queue_times(op, attention, out);
  return out;
}

void PartitionProfiler::gpu_queue_times(const model::OpDesc& op, const kernels::AttentionShape* attention, std::vector<Tick>& out) {
  const double rate = gpu_flow_rate();
  out.clear();
  const auto add = [&](const hw::GpuKernel& kernel) {
    // Rounded down, one tick less: the DRAM model's rounding of a flow's end may not exceed it.
    const double traffic = static_cast<double>(kernel.dram_bytes) / rate * static_cast<double>(kSecond);
    const Tick memory = traffic >= 1 ? static_cast<Tick>(traffic) - 1 : 0;
    out.push_back(std::max(hw::gpu_compute_time(soc_.gpu, kernel), memory));
  };
  // Each buffer's share of a kernel beyond max_allocation is a submission of its own.
  for (const auto& kernel : lowering_.gpu(op, runtime::Precision::kW4A16, attention).kernels) {
    if (!hw::gpu_exceeds_max_allocation(soc_.gpu, kernel)) {
      add(kernel);
      continue;
    }
    for (const auto& part : hw::gpu_allocation_parts(soc_.gpu, kernel)) add(part);
  }
}

double PartitionProfiler::gpu_flow_rate() const {
  // A flow alone moves no faster than its port's cap or DRAM's peak for one master.
  const auto& eff = soc_.dram.concurrency_efficiency;
  return std::min(soc_.gpu.port_bandwidth, soc_.dram.peak_bandwidth * (eff.empty() ? 1.0 : eff.front()));
}

PartitionProfiler::PartBytes PartitionProfiler::bytes(const Partition& p) {
  PartBytes out;
  if (p.uses_gpu()) {
    std::optional<double>& known = facts(p.gpu_rows, p.k, p.gpu_cols).gpu_bytes;
    if (!known) {
      const model::OpDesc op{"profile", model::OpKind::kMatMul, p.gpu_rows, p.k, p.gpu_cols, 1, 0, p.k * p.gpu_cols};
      double sum = 0;
      for (const auto& kernel : lowering_.gpu(op, runtime::Precision::kW4A16, nullptr).kernels) sum += static_cast<double>(kernel.dram_bytes);
      known = sum;
    }
    out.gpu = *known;
    out.gpu_rate = gpu_flow_rate();
  }
  double npu_seconds = 0;
  for_each_run(p, [&](std::uint64_t rows, std::uint64_t count) {
    ShapeFacts& f = facts(rows, p.k, p.npu_cols);
    if (!f.npu_traffic_known) {
      const auto traffic = runtime::lowering::npu_dram_traffic(soc_.npu, npu_piece(rows, p.k, p.npu_cols).work);
      f.npu_traffic_bytes = traffic.bytes, f.npu_traffic_seconds = traffic.seconds, f.npu_traffic_known = true;
    }
    out.npu += static_cast<double>(count) * f.npu_traffic_bytes;
    npu_seconds += static_cast<double>(count) * f.npu_traffic_seconds;
  });
  if (npu_seconds > 0) out.npu_rate = out.npu / npu_seconds;
  return out;
}

const runtime::NpuOpWork& PartitionProfiler::npu_piece(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) {
  // The op of alone()'s one-piece run (partition_jobs keeps the name of a first piece).
  const model::OpDesc op{"profile", model::OpKind::kMatMul, rows, k, cols, 1, 0, k * cols};
  return lowering_.npu(op, runtime::Precision::kW4A16, nullptr, {});
}

Tick PartitionProfiler::npu_call(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) {
  std::optional<Tick>& known = facts(rows, k, cols).npu_call;
  if (!known) known = npu_call_of(npu_piece(rows, k, cols));
  return *known;
}

Tick PartitionProfiler::npu_call_of(const runtime::NpuOpWork& lowered) const {
  return hw::graph_execute_time(soc_.npu.graph, lowered.graph_nodes, 0);  // QNN shared memory (HeteroLLM 4.2): nothing to synchronize
}

Tick PartitionProfiler::npu_piece_bound(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) {
  std::optional<Tick>& known = facts(rows, k, cols).npu_bound;
  if (!known) {
    const runtime::NpuOpWork& lowered = npu_piece(rows, k, cols);
    // The graph call precedes its nodes.
    known = npu_call_of(lowered) + runtime::lowering::npu_engines_bound(soc_.npu, lowered.work);
  }
  return *known;
}

PartTimes PartitionProfiler::alone(const Partition& p) {
  PartTimes t;
  if (p.uses_gpu()) {
    if (const auto known = facts(p.gpu_rows, p.k, p.gpu_cols).gpu_alone) {
      t.gpu = *known;
    } else {
      Partition g;
      g.kind = CutKind::kGpuOnly;
      g.m = p.gpu_rows, g.k = p.k, g.n = p.gpu_cols;
      g.gpu_rows = p.gpu_rows, g.gpu_cols = p.gpu_cols;
      t.gpu = time(g).gpu;
      facts(p.gpu_rows, p.k, p.gpu_cols).gpu_alone = t.gpu;  // (asked again: the run may reach the table)
    }
  }
  t.npu = npu_alone(p);
  return t;
}

Tick PartitionProfiler::npu_alone(const Partition& p) {
  Tick sum = 0;
  for_each_run(p, [&](std::uint64_t rows, std::uint64_t count) {
    Tick piece = 0;
    if (const auto known = facts(rows, p.k, p.npu_cols).npu_piece_alone) {
      piece = *known;
    } else {
      Partition q;
      q.kind = CutKind::kNpuOnly;
      q.m = rows, q.k = p.k, q.n = p.npu_cols;
      q.npu_pieces = {rows}, q.npu_rows = rows, q.npu_cols = p.npu_cols;
      piece = time(q).npu;
      facts(rows, p.k, p.npu_cols).npu_piece_alone = piece;
    }
    sum += static_cast<Tick>(count) * piece;
  });
  return sum;
}

}  // namespace socsim::systems::heterollm
