#pragma once
// A whole SoC built from its description: the shared DRAM and every unit attached to it, all on
// one Simulator. Runs, microbenchmarks and strategies drive these units; nothing else owns
// hardware state.
#include <memory>

#include "sim/core/simulator.h"
#include "sim/hw/cpu/cpu_complex.h"
#include "sim/hw/gpu/adreno_gpu.h"
#include "sim/hw/memory/dram_model.h"
#include "sim/hw/npu/hexagon_npu.h"
#include "sim/hw/storage/ufs_storage.h"
#include "sim/hw/soc_spec.h"
#include "sim/report/trace.h"

namespace socsim::hw {

class Soc {
 public:
  // `trace` may be null (no timeline recorded).
  Soc(Simulator& sim, const SocSpec& spec, report::TraceRecorder* trace);
  // Processes may hold references into the units: they end before the units do.
  ~Soc() { sim_.kill_processes(); }
  Soc(const Soc&) = delete;
  Soc& operator=(const Soc&) = delete;

  Simulator& sim() { return sim_; }
  const SocSpec& spec() const { return spec_; }
  DramModel& dram() { return *dram_; }
  HexagonNpu& npu();  // throws config::ConfigError when the SoC has none (spec().has_npu)
  AdrenoGpu& gpu() { return *gpu_; }
  CpuComplex& cpu() { return *cpu_; }
  UfsStorage& storage() { return *storage_; }

 private:
  Simulator& sim_;
  SocSpec spec_;
  std::unique_ptr<DramModel> dram_;
  std::unique_ptr<HexagonNpu> npu_;
  std::unique_ptr<AdrenoGpu> gpu_;
  std::unique_ptr<CpuComplex> cpu_;
  std::unique_ptr<UfsStorage> storage_;
};

}  // namespace socsim::hw
