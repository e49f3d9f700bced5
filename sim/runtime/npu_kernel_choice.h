#pragma once
// Which variant of the NPU's custom kernels a job's ops lower to (the default reproduces the
// runtime's behaviour before strategies could choose). A strategy that writes its own kernels
// (TTS) sets it per job; the lowering cache keys on it.
#include <compare>

#include "kernels/gemm/dequant_layout.h"
#include "kernels/gemm/graph_activation_layout.h"
#include "kernels/softmax/exp_variant.h"

namespace socsim::runtime {

// Which kernel a W4A16 matmul runs on the NPU.
enum class W4A16Kernel {
  kVendorGraph,  // the vendor runtime's static graph (HeteroLLM, npu-only): kernels::lower_gemm_w4a16_graph_npu
  kCustom,       // a hand-written HVX dequantization + HMX pipeline (TTS): kernels::lower_gemm_w4a16_npu
};

struct NpuKernelChoice {
  // Matmuls of fewer rows than an HMX tile: false = the vendor runtime's choice, one row on the
  // GEMV face (weights streamed on the HVX threads), a few rows on it or on the HMX tiles,
  // whichever the engines' bound finds faster (matmul_lowering.h); true = the precision's HMX GEMM
  // face, a whole tile for one row (TTS decodes on HMX at any batch).
  bool hmx_gemv = false;
  // W4A16 matmuls: whose kernel. Systems without their own kernels get the vendor runtime's.
  W4A16Kernel w4a16 = W4A16Kernel::kVendorGraph;
  // Custom W4A16 matmuls: the dequantization layout (kernels/gemm/dequant_layout.h) ...
  kernels::DequantLayout dequant = kernels::DequantLayout::kCoalesced;
  // ... FFN-down in Q8_0 (TTS keeps it at 8.5 bits for accuracy) ...
  bool q8_0_down = false;
  // ... and the next weight chunk's DMA during this chunk's dequantization (double buffering).
  bool prefetch_weights = false;
  // FP16 flash attention: the softmax exp (kExact = an FP32 polynomial on HVX).
  kernels::ExpVariant exp = kernels::ExpVariant::kLut;
  // Static-graph matmuls (W8A8, per-group INT8, vendor W4A16): how the graph folds its tokens into
  // the activation tensor's height x width (llm.npu profiles the equivalent shapes offline).
  kernels::GraphActivationLayout graph_layout = kernels::GraphActivationLayout::kPacked;

  auto operator<=>(const NpuKernelChoice&) const = default;
};

}  // namespace socsim::runtime
