#pragma once
// One operator on one unit of a SoC, timed by the same hardware models a full run uses
// (`socsim microbench`; calibration claims are written against it).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/hw/dtype.h"
#include "sim/hw/npu/gemm_plan.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/microbench/kernel_switches.h"

namespace socsim::runtime {

struct MicrobenchRequest {
  std::string soc_id;
  hw::SocSpec soc;
  std::string op;                    // matmul | qk | read | copy | graph-build | softmax | attention
  std::string unit;                  // npu | gpu | cpu | gpu+npu
  std::string engine;                // npu: hmx | hvx | dma; "" = the vendor runtime's default path
  hw::DType dtype = hw::DType::kFp16;
  std::uint64_t m = 0, k = 0, n = 0;
  std::uint64_t heads = 1;
  std::uint64_t kv_heads = 0;        // attention: 0 = heads (no GQA)
  std::uint64_t q = 0, kv = 0;       // attention: query rows (a chunk at the end of kv) and keys
  std::string exp;                   // softmax/attention exp: exact | poly | lut ("" = the unit's default)
  std::uint32_t threads = 0;         // 0 = the unit's default (see microbench_command --help)
  hw::OperandHome operands = hw::OperandHome::kDram;
  // npu matmul on hmx through the graph: the activation tensor's layout, "packed" (rows straight
  // into tiles), "HxW" (H x W = m, croutons padded) or "equivalent" (the fastest H x W).
  std::string layout = "packed";
  // qk, and attention on the npu in int8 (--graph-io): the graph's tensors are client buffers,
  // synchronized per execute (shadowAttn's stack, whose 3.4 timings qk reproduces;
  // npu.graph.client_io_*), or registered shared memory.
  bool client_io = true;
  std::uint64_t bytes = 0;
  std::optional<model::ModelConfig> model;
  std::uint64_t prompt = 0;
  KernelSwitches switches;           // --set kernel.*
};

// Throws config::ConfigError for combinations that make no sense (the key says which option).
nlohmann::ordered_json run_microbench(const MicrobenchRequest& request);

// The CPU threads a CPU kernel runs on: --threads, else llama.cpp's and MLLM's default of 4, or
// every core of a smaller CPU (a one-core SoC file is a valid what-if).
std::uint32_t cpu_threads(const MicrobenchRequest& request);

}  // namespace socsim::runtime
