#pragma once
// What `socsim run` asks for, after every input has been resolved and checked.
#include <cstdint>
#include <string>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/data_driven.h"
#include "sim/runtime/workload/workload.h"
#include <vector>

namespace socsim::runtime {

enum class Mode { kTiming, kFunctional };

struct RunRequest {
  std::string soc_id;
  hw::SocSpec soc;
  model::ModelConfig model;
  std::string system;
  Mode mode = Mode::kTiming;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t decode_tokens = 0;
  std::uint64_t batch = 1;
  std::uint64_t seed = 0;
  // The requests of a workload file, simulated back to back on one SoC (closed loop, one client:
  // each starts when the previous has produced its last token; the NPU graph cache and every
  // unit's state carry over). Empty: the single request above.
  std::vector<Request> workload;
  std::string workload_name;
  // A co-running GPU render load (HeteroLLM's interference experiment): every 1/fps a frame of
  // `gpu_background_frame` GPU time joins the GPU's queue and must finish by the next frame's
  // release (--set workload.gpu_background=8ms [--set workload.fps=60]). 0 = none.
  Tick gpu_background_frame = 0;
  double gpu_background_fps = 60;
  // Functional mode: quantities measured on the data, applied to the (first) request's plan.
  DataDriven data_driven;
  // Host memory the simulation may hold (the process's resident memory); past it the run stops
  // with bad input naming --max-host-memory. 0 = no limit (library callers, tests).
  std::uint64_t max_host_memory = 0;
  // Decode steps planned and run at a time, for systems that plan decode windows
  // (systems::System::decode_windows): a long decode holds one window's plan, not the whole
  // request's, so its host memory is bounded. A few steps, not hundreds: a plan that stays in the
  // host's caches runs faster (issue #21: llama-3-8b 1024 + 64 under hetero-tensor 0.13 s and 28 MB
  // whole, 0.08 s and 14 MB in windows of 8; a 4096-token decode 1.65 s at 256, 1.42 s at 8), and
  // 8 still lets a system copy a window's later steps from its first (decode_step_copy.h).
  // 0 = the whole request at once (tests compare).
  std::uint64_t decode_window = 8;
  // NPU work and CPU tasks that run alone and were seen before are replayed from a recording
  // instead of simulated event by event (npu_alone_replay.h, hw/cpu/cpu_complex.h): same results,
  // fewer events. false: never (tests compare).
  bool replay_alone_runs = true;
};

inline const char* mode_name(Mode m) { return m == Mode::kTiming ? "timing" : "functional"; }

}  // namespace socsim::runtime
