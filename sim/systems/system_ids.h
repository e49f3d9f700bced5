#pragma once
// The system (strategy) ids of the contract (DESIGN.md 2). Strategies register under these names
// as they land; until then `run` accepts the id and says which stage it simulates.
#include <array>
#include <string_view>

namespace socsim::systems {

inline constexpr std::array<std::string_view, 13> kSystemIds = {
    "cpu-only",  "gpu-only", "npu-naive", "llm-npu",         "hetero-layer", "hetero-tensor", "shadowattn",
    "cg-full",   "cg-sparse", "cg-block-sparse", "npu-full", "tts-npu",      "npu-only"};

inline bool is_known_system(std::string_view id) {
  for (auto s : kSystemIds) {
    if (s == id) return true;
  }
  return false;
}

}  // namespace socsim::systems
