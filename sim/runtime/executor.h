#pragma once
// Runs a Plan on a SoC: every job becomes a process that waits for the jobs it depends on, pays
// the synchronization the hand-over between units costs, then runs its ops' lowered work on its
// unit. Units serialize their own work (the NPU executes one graph at a time, the GPU queue is
// in order, CPU cores are handed out FIFO), so the order of execution follows from dependencies
// and resource availability, deterministically.
#include <boost/container/small_vector.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/core/sync.h"
#include "sim/hw/soc.h"
#include "sim/model/model_config.h"
#include "sim/report/trace.h"
#include "sim/runtime/job.h"
#include "sim/runtime/job_picker.h"
#include "sim/runtime/lane_gate.h"
#include "sim/runtime/lowering/lowering_cache.h"
#include "sim/runtime/sync_policy.h"

namespace socsim::runtime {

struct OpTimeKey {
  // Views of static strings (unit_name, model::op_kind_name, literals): built per op without
  // allocating.
  std::string_view unit;  // npu | gpu | cpu
  std::string_view kind;  // op kind (matmul, attn_scores, ...) or "graph_build", "sync"
  bool operator<(const OpTimeKey& o) const { return unit != o.unit ? unit < o.unit : kind < o.kind; }
};

// Time per OpTimeKey, added to on every op: a short list (a run meets a few dozen keys) searched
// by the views' addresses first, since a key's views nearly always point at the same static
// string, then by content; sorted only when read (a map compared strings at every level).
class OpTimes {
 public:
  Tick& operator[](const OpTimeKey& key);
  std::map<OpTimeKey, Tick> sorted() const;

 private:
  std::vector<std::pair<OpTimeKey, Tick>> entries_;
  // Where a key's views were last found, by a hash of their addresses (entry + 1; 0: none): the
  // ops of a step take turns over a few keys, which a scan from the last one found walked.
  std::array<std::uint32_t, 64> found_{};
};

class Executor {
 public:
  // `shared_lowering`, when given, is used instead of a cache of the executor's own: a profiler
  // running many one-job executors lowers each op once (it must outlive the executor and be
  // built for the same model and NPU). `bound_lowering`: the executor starts the cache over after
  // a plan's run past kLoweringCacheLimit; false for a profiler's one-job runs in a run's cache,
  // whose own executor bounds it.
  Executor(hw::Soc& soc, const model::ModelConfig& model, SyncPolicy sync, report::TraceRecorder* trace,
           lowering::LoweringCache* shared_lowering = nullptr, bool bound_lowering = true);
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  // Starts `cache` over when it holds more than an executor keeps between plans (past
  // kLoweringCacheLimit entries or kLoweringCacheNpuBytes of NPU work). Only when no job holds
  // a lowered work: an executor's run() after its plan ran, or the owner of a cache its one-job
  // executors share, between their runs.
  static void bound_lowering_cache(lowering::LoweringCache& cache);

  // Runs every job of the plan; completes when all have finished.
  Task<> run(const Plan& plan);
  // The plans run next continue `last` (the previous plan's final job, finished): their jobs
  // without dependencies hand over from it as from a dependency on another unit, as one long
  // decode run window by window must (RunRequest::decode_window). nullopt: plans stand alone.
  void continue_after(std::optional<Job> last) { carry_ = std::move(last); }

  Tick job_end(std::uint32_t job) const { return end_.at(job); }
  // When the job began: its dependencies met and its lane (if any) held.
  Tick job_start(std::uint32_t job) const { return start_.at(job); }
  // Wall time per (unit, op kind), summed over ops (ops of different units overlap in time).
  std::map<OpTimeKey, Tick> op_time() const { return op_time_.sorted(); }
  std::uint64_t graphs_built() const { return graphs_built_; }
  // When the job's ops began (after its hand-overs).
  Tick job_ready(std::uint32_t job) const { return ready_.at(job); }
  // For an NPU job: how long any NPU engine (HMX, HVX, DMA) was active between its start and end
  // (its graph call's fixed cost and its waits are not engine activity); 0 for other units.
  Tick job_npu_engine_busy(std::uint32_t job) const { return npu_engine_busy_.at(job); }
  // CPU jobs: core-time their cores waited on DRAM after computing (stalled power, energy model).
  Tick job_cpu_stalled(std::uint32_t job) const { return cpu_stalled_.at(job); }
  // Bytes the DRAM had moved (all masters) when the job started (job_start) and ended: traffic
  // between two jobs' times without keeping a bandwidth timeline.
  std::uint64_t job_dram_bytes_at_start(std::uint32_t job) const { return dram_bytes_at_start_.at(job); }
  std::uint64_t job_dram_bytes_at_end(std::uint32_t job) const { return dram_bytes_at_end_.at(job); }
  // The DRAM traffic of the job's ops, whatever ran beside it: CPU tasks' and GPU kernels' bytes as
  // lowered (what the CPU and GPU models move); an NPU job's, the NPU port's bytes between its
  // start and end (valid while NPU jobs do not overlap: npu_jobs_overlapped). Not its storage
  // reads, nor the hand-over copies between units (the runtime's, before the job's ops).
  std::uint64_t job_own_dram_bytes(std::uint32_t job) const { return own_dram_bytes_.at(job); }
  // Whether two NPU jobs of the last plan ran at once: their own traffic (above) is then not told
  // apart, and a report that needs it must not use it.
  bool npu_jobs_overlapped() const { return npu_overlapped_; }
  // When the job's work was complete: for GPU jobs under fast sync, the completion of its last
  // kernel (the flag's time); otherwise job_end (a GPU job's end is when its kernels are queued).
  Tick job_complete(std::uint32_t job) const;
  // For the watchdog: per unit, the jobs of the plan being run that are running, waiting for a
  // lane or hand-over, or waiting for dependencies (with the first unmet one), and a count of
  // jobs done. Empty before run().
  std::string describe_state(std::size_t max_jobs_per_unit) const;

 private:
  // Runs job `index` once its dependencies are met (run() awaits them first).
  Task<> run_job(const Plan& plan, std::uint32_t index);
  // `called`: the NPU job's graph call was already made (npu_call, during the hand-overs).
  Task<> run_ops(const Job& job, std::uint32_t index, bool called = false);
  // The hand-overs from the last producer on each other unit, one after another (the host's).
  Task<> hand_overs(const Plan& plan, const Job& job);
  // What an NPU job's graph call costs: its lowered ops' nodes and the bytes of their I/O.
  struct GraphCall {
    std::uint32_t nodes = 0;
    std::uint64_t io_bytes = 0;
  };
  // An NPU job's graph preparation (first use) and call: the vendor runtime's fixed cost, and the
  // I/O's synchronization when the job's tensors are client buffers (Job::npu_client_io).
  Task<> npu_call(const Job& job, GraphCall call);
  GraphCall npu_graph_call(const Job& job);
  // A static graph's nodes as a dataflow (graph_dataflow.h), each node's time accounted to its op.
  Task<> run_graph_nodes(const Job& job, const std::vector<const NpuOpWork*>& lowered);
  // `from_index` is kNoJob for a job of an earlier plan (continue_after): it has finished.
  static constexpr std::uint32_t kNoJob = 0xFFFFFFFF;
  Task<> hand_over(const Job& from, std::uint32_t from_index, const Job& to);
  // The host's clFinish called at `called`: every queued kernel done, and no sooner than
  // gpu.sync_fixed after the call.
  Task<> gpu_sync(Tick called);
  Task<> build_graph_if_new(const Job& job);
  // const char*: static strings only (literals, unit_name, op_kind_name), kept by OpTimeKey as views.
  void account(const char* unit, const char* kind, Tick start);
  // The attention shape of a softmax op's layer (from the plan's attn_scores op of the same
  // phase, step and layer); nullptr for other ops.
  const kernels::AttentionShape* attention_of(const model::GraphOp& g) const;

  hw::Soc& soc_;
  const model::ModelConfig& model_;
  const Plan* plan_ = nullptr;  // the plan run() is executing (for describe_state)
  SyncPolicy sync_;
  report::TraceRecorder* trace_;
  std::optional<Job> carry_;  // continue_after
  static constexpr std::size_t kLoweringCacheLimit = 4096;
  // And past 4 MiB of NPU work: a batch of 16's decode attention is 0.4 MB per step (one kernel
  // per key length), and a window's kept for the whole run made npu-only's llama-3-8b 1024 + 64
  // hold 29 MB of it (tts-npu's 41 MB), each fresh page faulted in; cleared, the next window
  // reuses the memory. A prompt's or a window's own entries are kept while it runs.
  static constexpr std::uint64_t kLoweringCacheNpuBytes = std::uint64_t{4} << 20;
  // A job waiting for its dependencies is not a process (a plan of 166k jobs held a frame per
  // job): it waits in the list of the first unfinished one, and that job's end wakes its list in
  // order, each at the current instant, as a trigger resumes its waiters. The woken job checks
  // its next dependencies then; with all done it starts as a process inside that same event (so
  // events and their order are a coroutine-per-job executor's exactly).
  // (Mostly one or two waiters: kept inline, a list per dependency was one allocation per wait.)
  using WaitList = boost::container::small_vector<std::uint32_t, 2>;
  std::vector<WaitList> waiting_;                     // per job: jobs waiting for it to finish
  std::vector<std::uint32_t> dep_cursor_;             // per job: its next dependency to check
  struct Wake {
    Executor* ex;
    std::uint32_t job;
  };
  std::vector<Wake> wake_;    // one per job (event contexts: never resized during a run)
  WaitGroup* all_ = nullptr;  // the running plan's jobs left
  static void wake(void* ctx);
  void advance(std::uint32_t job);
  void finished(std::uint32_t job);
  std::vector<Tick> start_, end_, ready_;
  std::vector<Tick> npu_engine_busy_;  // per NPU job: NPU engine-busy time between its start and end
  std::vector<Tick> cpu_stalled_;      // per CPU job: core-time stalled on DRAM
  std::vector<std::uint64_t> dram_bytes_at_start_, dram_bytes_at_end_;
  std::vector<std::uint64_t> own_dram_bytes_;  // job_own_dram_bytes
  std::uint32_t npu_in_flight_ = 0;
  bool npu_overlapped_ = false;
  // Fired after the job's hand-overs; a trigger only for a job another waits to begin (a
  // start_deps target), the flag for every job.
  std::vector<std::unique_ptr<Trigger>> began_;
  std::vector<bool> began_flags_;
  // Fast sync (SyncPolicy::fast): per GPU job, its last kernel's number in the queue, its
  // predicted completion and the flag fired when its kernels have run.
  std::vector<std::uint64_t> gpu_mark_;
  std::vector<Tick> gpu_predicted_end_;
  std::vector<Trigger*> gpu_flag_;  // fast sync: GPU jobs only (else null), held in:
  std::deque<Trigger> gpu_flag_store_;  // (a block per several jobs: an allocation per GPU job was a share of a run)
  Tick gpu_tail_predicted_ = 0;
  std::string flag_name_;  // the process name of a GPU job's flag
  // The cluster whose core polls a GPU job's flag (fast sync; a mid core): found once, not at
  // every hand-over (ranking the clusters by name and speed was 1% of a HeteroLLM run).
  const hw::CpuClusterSpec* poll_cluster_ = nullptr;
  Task<> set_gpu_flag(std::uint64_t mark, Trigger& flag);
  // Lanes (job.h): one gate per lane name; the pick policy sees which jobs are done or started.
  LaneGate& lane(const Plan& plan, const std::string& name);
  std::map<std::string, std::unique_ptr<LaneGate>> lanes_;
  Dependents dependents_;
  std::vector<bool> done_flags_, started_;
  std::set<std::string> built_graphs_;
  std::uint64_t graphs_built_ = 0;
  OpTimes op_time_;
  lowering::LoweringCache own_lowering_;
  lowering::LoweringCache& lowering_;  // own_lowering_ or the shared one
  bool bound_lowering_ = true;
  std::map<std::tuple<model::Phase, std::uint64_t, std::uint32_t>, kernels::AttentionShape> layer_attention_;
};

const char* unit_name(kernels::Unit u);

}  // namespace socsim::runtime
