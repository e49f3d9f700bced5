#pragma once
// How W4A16 weights are laid out for the NPU's HVX dequantization (TTS paper 5.1, the GEMM
// ablation's four variants). The packet counts of each are in hvx_costs.h.
#include <optional>
#include <string_view>

namespace socsim::kernels {

enum class DequantLayout {
  kBaseline,   // ggml's conventional groups (32 consecutive k of one column), dequantized one
               // group at a time and scattered into the HMX tile layout in TCM
  kHmxLayout,  // tile groups (weights reordered offline into HMX order, then quantized), one
               // group at a time, written to TCM contiguously
  kCoalesced,  // tile groups packed 8 at a time into a 256-weight super-group that fills one HVX
               // register (vlut16 INT4 -> FP16, vlut16 scale broadcast): TTS's kernel
  kNone,       // the quantized bytes copied into the tile buffers, no dequantization: the upper bound
};

inline const char* dequant_layout_name(DequantLayout l) {
  switch (l) {
    case DequantLayout::kBaseline: return "baseline";
    case DequantLayout::kHmxLayout: return "hmx-layout";
    case DequantLayout::kCoalesced: return "coalesced";
    case DequantLayout::kNone: return "none";
  }
  return "?";
}

// The variant names, plus the older switch names tile-group (= coalesced) and ggml (= baseline).
inline std::optional<DequantLayout> parse_dequant_layout(std::string_view s) {
  if (s == "baseline" || s == "ggml") return DequantLayout::kBaseline;
  if (s == "hmx-layout") return DequantLayout::kHmxLayout;
  if (s == "coalesced" || s == "tile-group") return DequantLayout::kCoalesced;
  if (s == "none") return DequantLayout::kNone;
  return std::nullopt;
}

}  // namespace socsim::kernels
