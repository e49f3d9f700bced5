#include "sim/hw/soc.h"

#include <algorithm>
#include <stdexcept>

#include "sim/config/config_error.h"

namespace socsim::hw {

Soc::Soc(Simulator& sim, const SocSpec& spec, report::TraceRecorder* trace) : sim_(sim), spec_(spec) {
  dram_ = std::make_unique<DramModel>(sim, spec.dram.peak_bandwidth, spec.dram.concurrency_efficiency);
  if (spec.has_npu) {
    if (spec.npu.impl != "hexagon") throw std::invalid_argument("unknown NPU implementation '" + spec.npu.impl + "' (known: hexagon)");
    npu_ = std::make_unique<HexagonNpu>(sim, spec.npu, *dram_, trace);
  }
  if (spec.gpu.impl != "adreno") throw std::invalid_argument("unknown GPU implementation '" + spec.gpu.impl + "' (known: adreno)");
  gpu_ = std::make_unique<AdrenoGpu>(sim, spec.gpu, *dram_, dram_->add_port("gpu", spec.gpu.port_bandwidth), trace);
  cpu_ = std::make_unique<CpuComplex>(sim, spec.cpu, *dram_, dram_->add_port("cpu", spec.cpu.port_bandwidth), trace);
  // Flash DMA writes into / reads from DRAM at most at the faster of its two directions.
  const double storage_cap = std::max(spec.storage.read_bandwidth, spec.storage.write_bandwidth);
  storage_ = std::make_unique<UfsStorage>(sim, spec.storage, *dram_, dram_->add_port("storage", storage_cap), trace);
}

HexagonNpu& Soc::npu() {
  if (!npu_) {
    throw config::ConfigError({spec_.source_file, 0, 0}, "npu",
                              "this SoC has no NPU (no `npu:` section); choose a system that runs on its GPU or CPU");
  }
  return *npu_;
}

}  // namespace socsim::hw
