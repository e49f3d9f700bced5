#include "sim/systems/llms/chunk_io_path.h"

#include <stdexcept>

#include "sim/core/time.h"

namespace socsim::systems::llms {

IoCost ChunkIoPath::host_cost() const {
  IoCost c;
  c.per_request_s = requests_per_chunk * (file_s + tensors_per_request * (tensor_s + upload_fixed_s));
  c.per_byte_s = copy_s_per_byte;
  c.per_delivered_byte_s = upload_s_per_byte;
  c.per_packed_byte_s = pack_s_per_byte;
  return c;
}

ChunkIoPath chunk_io_path(const hw::SocSpec& soc, const model::ModelConfig& model, const Options& opt, std::uint32_t element_bytes,
                          bool kv_on_gpu) {
  if (soc.cpu.clusters.empty()) throw std::invalid_argument("the SoC has no CPU cluster to run the service's I/O thread");
  if (model.layers == 0) throw std::invalid_argument("the model has no layers");
  // The I/O thread is one busy thread: the scheduler keeps it on the fastest core (hw::core_class).
  const hw::CpuClusterSpec* core = hw::cluster_of_class(soc.cpu, hw::CoreClass::kPrime);
  const double hz = static_cast<double>(core->clock_hz);
  ChunkIoPath p;
  p.requests_per_chunk = opt.io_granularity == IoGranularity::kLayer ? static_cast<std::uint32_t>(model.layers) : 1;
  // K and V per layer; a quantized cache stores each with its scales (a second tensor).
  p.tensors_per_request = (element_bytes == 1 ? 4 : 2) * (opt.io_granularity == IoGranularity::kLayer ? 1 : static_cast<std::uint32_t>(model.layers));
  p.file_s = opt.io_file_cycles / hz;
  p.tensor_s = opt.io_tensor_cycles / hz;
  p.copy_s_per_byte = core->core_bandwidth > 0 ? opt.io_host_copies / core->core_bandwidth : 0.0;
  p.pack_s_per_byte = core->core_bandwidth > 0 ? 1.0 / core->core_bandwidth : 0.0;
  // The KV goes to the processor that runs inference: the GPU when recompute runs there (the
  // paper's Jetson stack: HF Transformers on CUDA); a CPU-side stack reads in place.
  if (opt.io_upload && kv_on_gpu) {
    p.upload_fixed_s = to_seconds(soc.gpu.copy_fixed);
    p.upload_s_per_byte = soc.gpu.copy_bandwidth > 0 ? 1.0 / soc.gpu.copy_bandwidth : 0.0;
  }
  const auto power = soc.power.cpu_core.find(core->name);
  p.host_power_w = power == soc.power.cpu_core.end() ? 0.0 : power->second.active_w;
  return p;
}

}  // namespace socsim::systems::llms
