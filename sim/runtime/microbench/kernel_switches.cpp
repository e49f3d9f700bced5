#include "sim/runtime/microbench/kernel_switches.h"

#include "sim/config/config_error.h"

namespace socsim::runtime {

KernelSwitches read_kernel_switches(const config::Section& root) {
  KernelSwitches s;
  const auto kernel = root.optional_child("kernel");
  if (!kernel) return s;
  if (const auto w = kernel->optional_child("w4a16")) {
    if (w->has("format")) s.w4a16_format = w->choice("format", {"q4_0", "q8_0"}) == "q8_0" ? kernels::BlockFormat::kQ8_0 : kernels::BlockFormat::kQ4_0;
    if (w->has("layout")) {
      s.w4a16_layout = *kernels::parse_dequant_layout(
          w->choice("layout", {"coalesced", "hmx-layout", "baseline", "none", "tile-group", "ggml"}));
    }
  }
  if (const auto f = kernel->optional_child("flash")) {
    if (f->has("kv_tile")) s.flash.kv_tile = static_cast<std::uint32_t>(f->integer("kv_tile", 32, 64));
    if (f->has("q_block")) s.flash.q_block = static_cast<std::uint32_t>(f->integer("q_block", 1, 4096));
    try {
      kernels::validate_flash_params(s.flash);
    } catch (const std::invalid_argument& e) {
      throw config::ConfigError(f->location(), "kernel.flash", e.what());
    }
  }
  return s;
}

}  // namespace socsim::runtime
