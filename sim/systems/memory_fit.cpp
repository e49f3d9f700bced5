#include "sim/systems/memory_fit.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"

namespace socsim::systems {

MemoryNeed memory_need(const model::ModelConfig& m, double bits_per_weight, std::uint64_t tokens, std::uint64_t batch) {
  MemoryNeed n;
  // The embedding table is stored too (gathered, not streamed); a tied head shares it.
  n.weight_bytes = static_cast<double>(m.total_params()) * bits_per_weight / 8.0;
  n.kv_bytes = 2.0 * static_cast<double>(m.layers * m.kv_heads * m.head_dim) * 2.0 * static_cast<double>(tokens) *
               static_cast<double>(batch);
  return n;
}

void require_npu(const hw::SocSpec& soc, const std::string& system) {
  if (soc.has_npu) return;
  throw config::ConfigError({soc.source_file, 0, 0}, "npu",
                            "system '" + system + "' runs on the NPU and this SoC has none (no `npu:` section); try gpu-only or cpu-only");
}

void check_fits_device_memory(const hw::SocSpec& soc, const model::ModelConfig& m, const std::string& system,
                              double bits_per_weight, std::uint64_t tokens, std::uint64_t batch) {
  const MemoryNeed n = memory_need(m, bits_per_weight, tokens, batch);
  const double gib = 1024.0 * 1024.0 * 1024.0;
  if (n.total() > static_cast<double>(soc.dram.capacity_bytes)) {
    throw config::ConfigError(
        {"command line", 0, 0}, "--model",
        fmt::format("{} under {} needs {:.2f} GiB of weights ({} bits/weight) + {:.2f} GiB of FP16 KV cache ({} tokens x "
                    "batch {}), more than the device's {:.2f} GiB of memory (dram.capacity)",
                    m.id, system, n.weight_bytes / gib, bits_per_weight, n.kv_bytes / gib, tokens, batch,
                    static_cast<double>(soc.dram.capacity_bytes) / gib));
  }
}

void check_workload_fits_device_memory(const hw::SocSpec& soc, const model::ModelConfig& m, const std::string& system, double bits_per_weight,
                                       const runtime::Workload& workload, const std::vector<runtime::Request>& requests) {
  for (const auto& r : requests) {
    try {
      check_fits_device_memory(soc, m, system, bits_per_weight, r.prompt + r.decode, r.batch);
    } catch (const config::ConfigError& e) {
      if (memory_need(m, bits_per_weight, 0, 0).total() > static_cast<double>(soc.dram.capacity_bytes)) throw;
      const bool by_batch = r.batch > 1 && !workload.batch_at.file.empty();
      throw config::ConfigError(by_batch ? workload.batch_at : workload.prompt_at, by_batch ? "batch" : "prompt",
                                "workload '" + workload.name + "': " + e.message());
    }
  }
}

}  // namespace socsim::systems
