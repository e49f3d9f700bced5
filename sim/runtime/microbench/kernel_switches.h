#pragma once
// Kernel switches a microbenchmark reads from `--set kernel.<kernel>.<switch>=value` (the same
// tree as the SoC file's overrides, so a misspelt key is an error with a did-you-mean). They pick
// variants of one kernel, not hardware: the hardware is the SoC file's.
//   kernel.w4a16.format   q4_0 (default, 4.5 bits/weight) | q8_0 (8.5)
//   kernel.w4a16.layout   the weight layout of the NPU's dequantization (TTS's GEMM ablation,
//                         kernels/gemm/dequant_layout.h): coalesced (default: tile groups in
//                         super-groups) | hmx-layout (tile groups, one at a time) | baseline
//                         (ggml's groups scattered into the tile layout) | none (copy, no
//                         dequantization: the upper bound); tile-group and ggml are the older
//                         names of coalesced and baseline
//   kernel.flash.kv_tile  keys per FlashAttention tile: 32 | 64 (default 64)
//   kernel.flash.q_block  query rows per block (default 32, the HMX tile height)
#include "kernels/attention/flash_attention.h"
#include "kernels/gemm/dequant_layout.h"
#include "kernels/quant/block_quant.h"
#include "sim/config/config_tree.h"

namespace socsim::runtime {

struct KernelSwitches {
  kernels::BlockFormat w4a16_format = kernels::BlockFormat::kQ4_0;
  kernels::DequantLayout w4a16_layout = kernels::DequantLayout::kCoalesced;
  kernels::FlashParams flash;  // exp comes from --exp
};

// Reads the optional `kernel:` section of `root`, consuming its keys.
KernelSwitches read_kernel_switches(const config::Section& root);

}  // namespace socsim::runtime
