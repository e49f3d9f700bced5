#include "sim/hw/npu/npu_spec.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"

namespace socsim::hw {

using config::Quantity;

namespace {
std::uint32_t u32(const config::Section& s, std::string_view key, std::int64_t min, std::int64_t max) {
  return static_cast<std::uint32_t>(s.integer(key, min, max));
}
}  // namespace

NpuSpec parse_npu_spec(const config::Section& s) {
  NpuSpec n;
  n.impl = s.choice("impl", {"hexagon"});  // the NPU models registered so far
  n.clock_hz = static_cast<std::uint64_t>(s.positive_quantity("clock", Quantity::kFrequency));
  n.scalar_threads = u32(s, "scalar_threads", 1, 64);
  n.address_space_bytes = static_cast<std::uint64_t>(s.positive_quantity("address_space", Quantity::kSize));
  n.session_limit_bytes = static_cast<std::uint64_t>(s.positive_quantity("session_limit", Quantity::kSize));
  n.max_sessions = u32(s, "max_sessions", 1, 64);
  n.tcm_bytes = static_cast<std::uint64_t>(s.positive_quantity("tcm", Quantity::kSize));
  n.port_bandwidth = s.positive_quantity("port_bandwidth", Quantity::kBandwidth);
  n.core_bandwidth = s.positive_quantity("core_bandwidth", Quantity::kBandwidth);

  const auto h = s.child("hmx");
  n.hmx.units = u32(h, "units", 1, 16);
  n.hmx.tile_rows = u32(h, "tile_rows", 1, 1024);
  n.hmx.fp16_tile_depth = u32(h, "fp16_tile_depth", 1, 1024);
  n.hmx.int8_tile_depth = u32(h, "int8_tile_depth", 1, 1024);
  n.hmx.fp16_tile_op_cycles = static_cast<std::uint64_t>(h.integer("fp16_tile_op_cycles", 1, 1 << 20));
  n.hmx.int8_tile_op_cycles = static_cast<std::uint64_t>(h.integer("int8_tile_op_cycles", 1, 1 << 20));
  n.hmx.weight_load_cycles = static_cast<std::uint64_t>(h.integer("weight_load_cycles", 0, 1 << 20));
  n.hmx.output_tile_cycles = static_cast<std::uint64_t>(h.integer("output_tile_cycles", 0, 1 << 20));

  const auto v = s.child("hvx");
  n.hvx.contexts = u32(v, "contexts", 1, 64);
  n.hvx.vector_bytes = u32(v, "vector_bytes", 16, 1024);
  n.hvx.packets_per_cycle = u32(v, "packets_per_cycle", 1, 8);
  n.hvx.vgather_latency_packets = u32(v, "vgather_latency_packets", 1, 1024);
  n.hvx.vlut16_packets = u32(v, "vlut16_packets", 1, 1024);
  if (v.has("shift_resources")) n.hvx.shift_resources = u32(v, "shift_resources", 1, 2);  // else 1 (V73/V75)
  n.hvx.qfloat = v.boolean("qfloat");
  n.hvx.fp16_mac_packets = v.number("fp16_mac_packets", 0.25, 1024);
  n.hvx.read_bandwidth = v.positive_quantity("read_bandwidth", Quantity::kBandwidth);

  const auto d = s.child("dma");
  n.dma.bandwidth = d.positive_quantity("bandwidth", Quantity::kBandwidth);
  n.dma.descriptor_overhead = d.time("descriptor_overhead");
  n.dma.channels = u32(d, "channels", 1, 64);

  const auto l = s.child("layout");
  n.layout.crouton_height = u32(l, "crouton_height", 1, 1024);
  n.layout.crouton_width_int8 = u32(l, "crouton_width_int8", 1, 1024);
  n.layout.crouton_width_fp16 = u32(l, "crouton_width_fp16", 1, 1024);

  const auto g = s.child("graph");
  n.graph.execute_overhead = g.time("execute_overhead");
  n.graph.op_dispatch = g.time("op_dispatch");
  n.graph.client_io_call = g.time("client_io_call");
  n.graph.client_io_bandwidth = g.positive_quantity("client_io_bandwidth", Quantity::kBandwidth);
  n.graph.build_base = g.time("build_base");
  n.graph.build_per_op = g.time("build_per_op");
  n.graph.build_per_mib_ms = g.number("build_per_mib_ms", 0, 1e6);
  n.graph.optimize_base = g.time("optimize_base");
  n.graph.optimize_per_op = g.time("optimize_per_op");
  n.graph.optimize_per_mib_ms = g.number("optimize_per_mib_ms", 0, 1e6);

  // Meaning, not just syntax: the scratchpad must hold at least a weight and an activation tile.
  const std::uint64_t tile_bytes = std::uint64_t{n.hmx.tile_rows} * n.hmx.fp16_tile_depth * 2;
  if (n.tcm_bytes < 2 * tile_bytes) {
    throw config::ConfigError(s.location_of("tcm"), s.path().empty() ? "tcm" : s.path() + ".tcm",
                              "TCM of " + std::to_string(n.tcm_bytes) + " B cannot hold two FP16 tiles of " +
                                  std::to_string(tile_bytes) + " B");
  }
  // HVX stores and DMA write tiles into TCM in whole vectors: a tile must be a whole number of them.
  for (const auto& [depth_key, bytes] : {std::pair{"fp16_tile_depth", tile_bytes},
                                         std::pair{"int8_tile_depth", std::uint64_t{n.hmx.tile_rows} * n.hmx.int8_tile_depth}}) {
    if (bytes % n.hvx.vector_bytes != 0) {
      // Blamed on the value the user changed (`--set npu.hmx.int8_tile_depth=7`), else on tile_rows.
      const std::string_view in_hmx = h.changed_of({"tile_rows", depth_key});
      const bool vector_changed = v.location_of("vector_bytes").file == config::kCommandLineSetFile &&
                                  h.location_of(in_hmx).file != config::kCommandLineSetFile;
      const auto& blamed = vector_changed ? v : h;
      const std::string key = vector_changed ? "vector_bytes" : std::string(in_hmx);
      throw config::ConfigError(blamed.location_of(key), blamed.path() + "." + key,
                                "a tile of tile_rows x " + std::string(depth_key) + " = " + std::to_string(bytes) +
                                    " B, not a whole number of " + std::to_string(n.hvx.vector_bytes) +
                                    "-byte HVX vectors (tiles reach TCM as whole vectors)");
    }
  }
  // What lives inside the NPU's address space must fit it; blamed on the value the user changed
  // (`--set npu.address_space=...` below the file's session limit; `npu.tcm=1000000 GiB` ran as a
  // 4 GiB TCM would).
  const auto fits_address_space = [&](const char* key, std::uint64_t bytes, const char* what, const char* why) {
    if (bytes <= n.address_space_bytes) return;
    const std::string_view blamed = s.changed_of({key, "address_space"});
    throw config::ConfigError(s.location_of(blamed), s.path() + "." + std::string(blamed),
                              fmt::format("{} ({}.{}, {} B) must fit the NPU's address space ({}.address_space, {} B): {}", what, s.path(),
                                          key, bytes, s.path(), n.address_space_bytes, why));
  };
  fits_address_space("tcm", n.tcm_bytes, "the TCM", "the scratchpad is addressed inside it");
  fits_address_space("session_limit", n.session_limit_bytes, "the session limit", "a session lives inside the address space");
  return n;
}

}  // namespace socsim::hw
