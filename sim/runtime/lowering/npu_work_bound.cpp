#include "sim/runtime/lowering/npu_work_bound.h"

#include <algorithm>
#include <limits>

#include "sim/hw/npu/gemm_plan.h"

namespace socsim::runtime::lowering {

namespace {
// What HVX streams from DRAM moves at most this fast (bytes/s): `contexts` threads' reads, within
// the core path's and the NPU port's caps (a cap of 0: none).
double stream_rate(const hw::NpuSpec& npu) {
  double rate = npu.hvx.read_bandwidth * npu.hvx.contexts;
  for (double cap : {npu.core_bandwidth, npu.port_bandwidth}) {
    if (cap > 0) rate = std::min(rate, cap);
  }
  return rate;
}
}  // namespace

double npu_engines_seconds(const hw::NpuSpec& npu, const kernels::NpuWork& work) {
  // Engine time each step holds, summed per engine (HexagonNpu): an HVX step holds n contexts for
  // ceil(packets / n / packets_per_cycle) cycles, so at least packets / packets_per_cycle context-
  // cycles of `contexts`; HMX work holds one of `units` for its cycles (a GEMM: its plan's); DMA
  // (one engine) its set-up rounds, then its bytes at no more than the DMA path's cap; bytes HVX
  // streams go through the core path, at most `contexts` threads' streams, the core's cap and the
  // NPU port's.
  double hvx_context_cycles = 0, hmx_cycles = 0, dma_s = 0, stream_bytes = 0;
  for (const auto& step : work.steps) {
    switch (step.kind) {
      case kernels::NpuStep::Kind::kHvx: hvx_context_cycles += step.packets / npu.hvx.packets_per_cycle; break;
      case kernels::NpuStep::Kind::kHvxStream:
        hvx_context_cycles += step.packets / npu.hvx.packets_per_cycle;
        stream_bytes += static_cast<double>(step.bytes);
        break;
      case kernels::NpuStep::Kind::kHmxCycles: hmx_cycles += static_cast<double>(step.hmx_cycles); break;
      case kernels::NpuStep::Kind::kHmxGemm: {
        // Its plan's HMX work, and for operands staged from DRAM its DMA: the bytes in and out at
        // the DMA path's cap and the staging transfers' set-up rounds.
        const hw::GemmBlock total = hw::plan_hmx_gemm_summary(npu, step.gemm, step.home).total;
        hmx_cycles += static_cast<double>(total.hmx_cycles);
        const std::uint64_t rounds = total.stage_transfers / npu.dma.channels;
        dma_s += to_seconds(rounds * npu.dma.descriptor_overhead) + static_cast<double>(total.stage_bytes + total.writeback_bytes) / npu.dma.bandwidth;
        break;
      }
      case kernels::NpuStep::Kind::kDma: {
        const std::uint64_t rounds = (step.transfers + npu.dma.channels - 1) / npu.dma.channels;
        dma_s += to_seconds(rounds * npu.dma.descriptor_overhead) + static_cast<double>(step.bytes) / npu.dma.bandwidth;
        break;
      }
      case kernels::NpuStep::Kind::kGraphCall: break;  // the caller's
    }
  }
  const double clock = static_cast<double>(npu.clock_hz);
  double stream_s = 0;
  if (const double rate = stream_rate(npu); stream_bytes > 0 && rate > 0) stream_s = stream_bytes / rate;
  return std::max({hvx_context_cycles / npu.hvx.contexts / clock, hmx_cycles / npu.hmx.units / clock, dma_s, stream_s});
}

Tick npu_engines_bound(const hw::NpuSpec& npu, const kernels::NpuWork& work) {
  const double ticks = npu_engines_seconds(npu, work) * static_cast<double>(kSecond);
  if (!(ticks < 1.8e19)) return std::numeric_limits<Tick>::max();  // (beyond 2^64 the cast is undefined)
  return ticks >= 1 ? static_cast<Tick>(ticks) - 1 : 0;
}

NpuDramTraffic npu_dram_traffic(const hw::NpuSpec& npu, const kernels::NpuWork& work) {
  double dma_bytes = 0, stream_bytes = 0;
  for (const auto& step : work.steps) {
    if (step.kind == kernels::NpuStep::Kind::kHvxStream) {
      stream_bytes += static_cast<double>(step.bytes);
    } else if (step.kind == kernels::NpuStep::Kind::kDma) {
      dma_bytes += static_cast<double>(step.bytes);
    } else if (step.kind == kernels::NpuStep::Kind::kHmxGemm) {
      const hw::GemmBlock total = hw::plan_hmx_gemm_summary(npu, step.gemm, step.home).total;
      dma_bytes += static_cast<double>(total.stage_bytes + total.writeback_bytes);
    }
  }
  const double s_rate = stream_rate(npu);
  double dma_rate = npu.dma.bandwidth;
  if (npu.port_bandwidth > 0) dma_rate = std::min(dma_rate, npu.port_bandwidth);
  const double stream_s = stream_bytes > 0 && s_rate > 0 ? stream_bytes / s_rate : 0;
  const double dma_s = dma_bytes > 0 && dma_rate > 0 ? dma_bytes / dma_rate : 0;
  NpuDramTraffic out;
  out.bytes = dma_bytes + stream_bytes;
  out.seconds = std::max(stream_s, dma_s);
  if (npu.port_bandwidth > 0) out.seconds = std::max(out.seconds, out.bytes / npu.port_bandwidth);
  return out;
}

std::uint32_t graph_node_dispatches(const kernels::NpuWork& work) {
  std::uint32_t nodes = 0;
  bool graph = false;
  for (const auto& step : work.steps) {
    if (step.kind != kernels::NpuStep::Kind::kGraphCall) continue;
    graph = true;
    nodes += step.graph_ops;
  }
  return graph ? nodes : 1;
}

}  // namespace socsim::runtime::lowering
