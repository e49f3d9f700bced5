#include "sim/hw/npu/graph_costs.h"

#include "sim/core/time.h"

namespace socsim::hw {

GraphSize graph_size(const std::vector<model::OpDesc>& ops, double weight_bits, double matmul_output_bytes) {
  GraphSize s;
  for (const auto& op : ops) {
    ++s.ops;
    s.tensor_bytes += static_cast<std::uint64_t>(static_cast<double>(op.weight_params) * weight_bits / 8.0);
    const bool gemm_like = op.kind == model::OpKind::kMatMul || op.kind == model::OpKind::kAttnScores ||
                           op.kind == model::OpKind::kAttnContext;
    const bool qk_estimate = op.kind == model::OpKind::kQkEstimate;  // raw INT32 scores (int8_attention.h)
    const std::uint64_t out_elems = gemm_like || qk_estimate ? op.batch * op.m * op.n : op.elements;
    const bool int8_out = op.kind == model::OpKind::kMatMul || op.kind == model::OpKind::kQuantize;
    const double out_bytes = qk_estimate ? 4.0 : int8_out ? matmul_output_bytes : 2.0;
    s.tensor_bytes += static_cast<std::uint64_t>(static_cast<double>(out_elems) * out_bytes);
  }
  return s;
}

namespace {
Tick linear(Tick base, Tick per_op, double per_mib_ms, const GraphSize& s) {
  const double mib = static_cast<double>(s.tensor_bytes) / (1024.0 * 1024.0);
  return base + per_op * s.ops + seconds_to_ticks_ceil(per_mib_ms * mib / 1e3);
}
}  // namespace

Tick graph_build_time(const NpuGraphSpec& g, const GraphSize& s) {
  return linear(g.build_base, g.build_per_op, g.build_per_mib_ms, s);
}

Tick graph_optimize_time(const NpuGraphSpec& g, const GraphSize& s) {
  return linear(g.optimize_base, g.optimize_per_op, g.optimize_per_mib_ms, s);
}

Tick graph_execute_time(const NpuGraphSpec& g, std::uint32_t ops, std::uint64_t client_io_bytes) {
  // Summed in long double first: a hostile SoC file's durations must not wrap around.
  const long double sync = client_io_bytes == 0 ? 0.0L
                                                : static_cast<long double>(g.client_io_call) +
                                                      static_cast<long double>(seconds_to_ticks_ceil(static_cast<double>(client_io_bytes) / g.client_io_bandwidth));
  const long double total = static_cast<long double>(g.execute_overhead) + static_cast<long double>(ops) * static_cast<long double>(g.op_dispatch) + sync;
  if (total >= static_cast<long double>(kTickMax)) throw TimeOverflow("a graph execute's duration overflows 64-bit picoseconds");
  return static_cast<Tick>(total);
}

}  // namespace socsim::hw
