#include "sim/systems/memory_fit.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "sim/config/quantity_format.h"

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

namespace {

// GiB with two decimals as these messages always gave them, but a size below 0.005 GiB in its own
// unit ("1 B", "108 KiB"): a what-if of a tiny DRAM said "0.00 GiB of memory".
std::string gib_text(double bytes) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (bytes == 0 || bytes >= 0.005 * kGiB) return fmt::format("{:.2f} GiB", bytes / kGiB);
  return config::detail::format_quantity(bytes, config::Quantity::kSize);
}

}  // namespace

void check_fits_device_memory(const hw::SocSpec& soc, const model::ModelConfig& m, const std::string& system,
                              double bits_per_weight, std::uint64_t tokens, std::uint64_t batch) {
  const MemoryNeed n = memory_need(m, bits_per_weight, tokens, batch);
  if (n.total() > static_cast<double>(soc.dram.capacity_bytes)) {
    throw config::ConfigError(
        {"command line", 0, 0}, "--model",
        fmt::format("{} under {} needs {} of weights ({} bits/weight) + {} of FP16 KV cache ({} tokens x "
                    "batch {}), more than the device's {} of memory (dram.capacity)",
                    m.id, system, gib_text(n.weight_bytes), bits_per_weight, gib_text(n.kv_bytes), tokens, batch,
                    gib_text(static_cast<double>(soc.dram.capacity_bytes))));
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
