#pragma once
// What a strategy hands the runtime: jobs, each a run of model ops on one unit, with the jobs it
// must wait for. An NPU job with a graph name is one static-graph execution (one call, its ops as
// the graph's nodes); GPU jobs are kernels on the in-order queue; CPU jobs are tasks on cores.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/lowering/work.h"
#include "sim/core/host_memory.h"
#include "sim/core/run_progress.h"
#include "sim/core/time.h"
#include "sim/hw/cpu/cpu_task.h"
#include "sim/hw/dtype.h"
#include "sim/model/graph_builder.h"
#include "sim/runtime/cpu_engine.h"
#include "sim/runtime/npu_kernel_choice.h"

namespace socsim::runtime {

// How an op's numbers are stored and computed on its unit.
enum class Precision {
  kFp32,        // CPU float ops
  kFp16,        // FP16 weights and math
  kW8A8,        // INT8 weights and activations, per-tensor scales (NPU)
  kW8A8Group,   // INT8 per-group (K-Quant/AWQ-like): on the NPU split into per-group sub-GEMMs
  kW4A16,       // Q4_0 weights (4.5 bits), FP16 activations; CPU runs them at the INT8 rate
};

const char* precision_name(Precision p);

// How a per-tensor W8A8 matmul scales its activations (llm.npu 3.3).
enum class OutlierHandling {
  kMinMax,  // the scale covers the whole input (outliers squeeze every other value's resolution)
  kShadow,  // an offline scale leaves `outlier_channels` channels out of range; their excess is
            // multiplied in float on the side and added back: exact recombination
  kClip,    // the same scale, the excess dropped (llm.npu's pruned layers)
};

struct Job {
  std::string name;
  kernels::Unit unit = kernels::Unit::kCpu;
  Precision precision = Precision::kFp32;
  std::vector<model::GraphOp> ops;
  std::vector<std::uint32_t> deps;  // indices of earlier jobs
  // Earlier jobs that must have begun (their hand-over done, their ops starting) before this one
  // starts: a host that synchronizes once and then launches both halves of a split op
  // (HeteroLLM's standard path: the GPU half is enqueued after the NPU half's queue drain).
  std::vector<std::uint32_t> start_deps;
  // NPU: the static graph this job executes ("" = a custom kernel with no graph call). A graph
  // seen for the first time is built and optimized before it runs unless prepared in advance.
  std::string npu_graph;
  NpuKernelChoice npu_kernels;      // NPU: which custom-kernel variants its ops lower to
  // NPU: the graph's tensors are the client's own buffers, synchronized on every execute
  // (npu.graph.client_io_*; shadowAttn's graphs); false: registered shared memory (llm.npu's
  // shared buffers, HeteroLLM's QNN shared memory, TTS's rpcmem).
  bool npu_client_io = false;
  std::uint32_t cpu_threads = 1;    // CPU: cores, filled fastest first
  CpuEngine cpu_engine = CpuEngine::kOptimized;  // CPU: the kernel library its ops lower through
  std::string cpu_cluster;          // CPU: run on this cluster only ("" = the fastest cores)
  bool attention_module = false;    // reported in attention_ms / attention_energy_j (shadowAttn)
  // Jobs of one lane run one at a time, the next chosen by the plan's pick policy when the lane
  // frees (llm.npu: one subgraph per processor at a time). "" = no lane: the job runs as soon as
  // its dependencies are met and its unit serves it.
  std::string lane;
  // Bytes read from storage before the ops run (llm.npu's cold outlier weight rows).
  std::uint64_t storage_read_bytes = 0;
  // Duration on an idle SoC, profiled offline (the NPU-stall picker's T); 0 = not profiled.
  Tick estimate = 0;
  // Numerics of per-tensor W8A8 matmuls (functional mode; timing is in the plan's jobs):
  OutlierHandling outliers = OutlierHandling::kMinMax;
  std::uint32_t outlier_channels = 0;  // kShadow / kClip: channels beyond the offline scale
};

// How a free lane chooses among the jobs waiting for it.
enum class PickPolicy {
  kArrival,     // the one that became ready first (FIFO)
  kProgramOrder,// the lowest job index (in-order execution)
  kNpuStall,    // llm.npu 3.4: max C(g) = +/- sum of T over the jobs g's completion makes ready
                // (+ for CPU/GPU jobs, - for NPU jobs); ties: lowest index
};

// The most jobs a planner reserves at once (~70 MB of Job): planners that know their plan's size
// reserve it (a plan grown by doubling moves every job into fresh pages at each growth), up to this.
inline constexpr std::uint64_t kReservedJobsLimit = 1 << 18;

struct Plan {
  std::vector<Job> jobs;
  // Index of the job after which the first token exists (end of prefill: logits of the last
  // prompt position), and the job ending each decode step.
  std::uint32_t prefill_end = 0;
  std::vector<std::uint32_t> decode_step_end;
  // Graphs built in a preparation stage before the request (not on its critical path).
  std::vector<std::string> prepared_graphs;
  PickPolicy pick = PickPolicy::kArrival;
  // Cores the plan's named-cluster work keeps to itself while the plan runs (a runtime that pins
  // its threads: shadowAttn's CPU budget): work sent to the fastest cores keeps off them
  // (CpuComplex::set_pins).
  std::vector<hw::CpuPin> cpu_pins;
  // Rows the decode steps sampled, when the batch shrinks as samples stop (a measured
  // DataDriven::decode_steps; 0 when every sample stopped at its first token); none: every step
  // samples the whole batch.
  std::optional<std::uint64_t> decode_rows;
  // Report attention_ms / attention_energy_j over the jobs marked attention_module.
  bool report_attention = false;
  // What the system wants reported about this plan (memory accounting, placement, ...); the run
  // report carries it under "system_info".
  nlohmann::ordered_json info = nlohmann::ordered_json::object();

  // Takes the job by rvalue (a job is some 270 bytes of strings and vectors: a by-value parameter
  // was one more move per job of every plan; copy explicitly where a job is reused).
  std::uint32_t add(Job&& j) {
    // A plan of a long decode is the run's largest allocation: stop before it takes the host's
    // memory (host_memory.h), checked every 4096 jobs (a /proc read). The progress line looks at
    // the clock every 64, so a plan whose jobs come slowly still says it is alive (the prefill's
    // op graph, a long prompt cut into one-token graphs, reports its own progress while it is built).
    if (jobs.size() % 64 == 63) {
      if (jobs.size() % 4096 == 4095) check_host_memory();
      progress_planning(jobs.size() + 1);
    }
    jobs.push_back(std::move(j));
    return static_cast<std::uint32_t>(jobs.size() - 1);
  }
};

}  // namespace socsim::runtime
