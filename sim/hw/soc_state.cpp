#include "sim/hw/soc_state.h"

#include <fmt/format.h>

namespace socsim::hw {

namespace {
const char* busy_word(const BusyTime& b) { return b.active() ? "busy" : "idle"; }
}  // namespace

std::string describe_units(Soc& soc) {
  std::string s;
  if (soc.spec().has_npu) {
    auto& npu = soc.npu();
    s += fmt::format("  npu: {} (hmx {}, hvx {}, dma {}), {} DMA bytes so far\n", busy_word(npu.busy()),
                     busy_word(npu.hmx_busy()), busy_word(npu.hvx_busy()), busy_word(npu.dma_busy()), npu.dma_bytes());
  } else {
    s += "  npu: none on this SoC\n";
  }
  auto& gpu = soc.gpu();
  s += fmt::format("  gpu: {}, {} kernels enqueued, {} finished\n", busy_word(gpu.busy()), gpu.enqueued(),
                   gpu.kernels());
  auto& cpu = soc.cpu();
  std::string clusters;
  for (const auto& [name, cores] : cpu.cores_by_cluster()) {
    clusters += fmt::format("{}{} ({} cores, {:.3f} ms core-busy)", clusters.empty() ? "" : ", ", name, cores,
                            static_cast<double>(cpu.core_busy(name)) / 1e9);
  }
  s += "  cpu: " + clusters + "\n";
  auto& dram = soc.dram();
  s += fmt::format("  dram: {} active flows, {:.2f} GB/s now\n", dram.active_flows(), dram.current_bandwidth() / 1e9);
  auto& st = soc.storage();
  s += fmt::format("  storage: {}, {} requests queued\n", busy_word(st.busy()), st.queue_length());
  return s;
}

}  // namespace socsim::hw
