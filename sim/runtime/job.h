#pragma once
// What a strategy hands the runtime: jobs, each a run of model ops on one unit, with the jobs it
// must wait for. An NPU job with a graph name is one static-graph execution (one call, its ops as
// the graph's nodes); GPU jobs are kernels on the in-order queue; CPU jobs are tasks on cores.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/lowering/work.h"
#include "sim/hw/dtype.h"
#include "sim/model/graph_builder.h"

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

struct Job {
  std::string name;
  kernels::Unit unit = kernels::Unit::kCpu;
  Precision precision = Precision::kFp32;
  std::vector<model::GraphOp> ops;
  std::vector<std::uint32_t> deps;  // indices of earlier jobs
  // NPU: the static graph this job executes ("" = a custom kernel with no graph call). A graph
  // seen for the first time is built and optimized before it runs unless prepared in advance.
  std::string npu_graph;
  std::uint32_t cpu_threads = 1;    // CPU: cores, filled fastest first
};

struct Plan {
  std::vector<Job> jobs;
  // Index of the job after which the first token exists (end of prefill: logits of the last
  // prompt position), and the job ending each decode step.
  std::uint32_t prefill_end = 0;
  std::vector<std::uint32_t> decode_step_end;
  // Graphs built in a preparation stage before the request (not on its critical path).
  std::vector<std::string> prepared_graphs;

  std::uint32_t add(Job j) {
    jobs.push_back(std::move(j));
    return static_cast<std::uint32_t>(jobs.size() - 1);
  }
};

}  // namespace socsim::runtime
