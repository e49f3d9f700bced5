#pragma once
// Does a run fit the phone's memory? The system's weights at its bits per weight plus the KV
// cache of the longest request (FP16, every layer, all of its batch) must fit dram.capacity;
// otherwise the run is bad input (exit 2), never a silently impossible simulation.
#include <cstdint>

#include <vector>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/workload/workload.h"

namespace socsim::systems {

struct MemoryNeed {
  double weight_bytes = 0;
  double kv_bytes = 0;
  double total() const { return weight_bytes + kv_bytes; }
};

MemoryNeed memory_need(const model::ModelConfig& m, double bits_per_weight, std::uint64_t tokens, std::uint64_t batch);

// Systems that place work on the NPU call this in configure(): a SoC file without an `npu:`
// section (Jetson boards) is bad input for them, named at the file, rather than a plan that
// quietly falls back to other units.
void require_npu(const hw::SocSpec& soc, const std::string& system);

// Throws config::ConfigError (key --model) when the need exceeds soc.dram.capacity_bytes.
void check_fits_device_memory(const hw::SocSpec& soc, const model::ModelConfig& m, const std::string& system,
                              double bits_per_weight, std::uint64_t tokens, std::uint64_t batch);

// The same for each request a workload file drew: a request whose KV cache does not fit beside
// weights that do is blamed on the file's line (its batch:, else its prompt:), not on --model.
// Checked when the run starts (a sweep's run fails, as a --batch that does not fit does).
void check_workload_fits_device_memory(const hw::SocSpec& soc, const model::ModelConfig& m, const std::string& system, double bits_per_weight,
                                       const runtime::Workload& workload, const std::vector<runtime::Request>& requests);

}  // namespace socsim::systems
