#pragma once
// Which CPU kernel library a job's CPU ops run through: a software stack's efficiency, kept apart
// from the hardware's (#18 item 8). The papers' CPU baselines are llama.cpp; the CPU rates in the
// SoC files are llm.npu's own optimized kernels (CAL llmnpu.t3.cpu-int8.*).
#include <optional>
#include <string_view>

namespace socsim::runtime {

enum class CpuEngine {
  kOptimized,  // tuned GEMM micro-kernels at the clusters' sustained rates, work shared in chunks
  kLlamaCpp,   // llama.cpp of early 2024 (kernels/llamacpp/): K-quant vec_dot per weight row and
               // activation column, a static thread split, attention over every cached key
};

inline const char* cpu_engine_name(CpuEngine e) { return e == CpuEngine::kLlamaCpp ? "llamacpp" : "optimized"; }

inline std::optional<CpuEngine> parse_cpu_engine(std::string_view s) {
  if (s == "optimized") return CpuEngine::kOptimized;
  if (s == "llamacpp") return CpuEngine::kLlamaCpp;
  return std::nullopt;
}

}  // namespace socsim::runtime
