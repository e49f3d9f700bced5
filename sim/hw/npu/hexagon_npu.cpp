#include "sim/hw/npu/hexagon_npu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/core/sync.h"
#include "sim/hw/hardware_limit_error.h"

namespace socsim::hw {

HexagonNpu::HexagonNpu(Simulator& sim, const NpuSpec& spec, DramModel& dram, report::TraceRecorder* trace)
    : sim_(sim),
      spec_(spec),
      clock_("npu", spec.clock_hz),
      dram_(dram),
      trace_(trace),
      scalar_(sim, "npu.scalar", spec.scalar_threads),
      hvx_(sim, "npu.hvx", spec.hvx.contexts),
      hmx_(sim, "npu.hmx", spec.hmx.units),
      dma_(sim, "npu.dma", 1),
      rpc_(sim, "npu.rpc", 1) {
  port_ = dram.add_port("npu", spec.port_bandwidth);
  dma_port_ = dram.add_port("npu.dma", spec.dma.bandwidth, port_);
  core_port_ = dram.add_port("npu.core", spec.core_bandwidth, port_);
  for (std::uint32_t i = 0; i < spec.hvx.contexts; ++i) {
    hvx_ports_.push_back(dram.add_port("npu.core.hvx" + std::to_string(i), spec.hvx.read_bandwidth, core_port_));
  }
}

Task<> HexagonNpu::dma(std::uint64_t bytes, std::uint64_t transfers, std::string name) {
  if (bytes == 0 && transfers == 0) co_return;
  auto lease = co_await dma_.acquire();
  busy_.begin(sim_.now());
  const Tick start = sim_.now();
  // Set-up of each transfer; `channels` transfers set up concurrently.
  const std::uint64_t rounds = (transfers + spec_.dma.channels - 1) / spec_.dma.channels;
  co_await sim_.delay(rounds * spec_.dma.descriptor_overhead);
  co_await dram_.transfer(dma_port_, bytes);
  dma_bytes_.add(bytes);
  busy_.end(sim_.now());
  span("npu.dma", name, start);
}

Task<> HexagonNpu::hmx(std::uint64_t cycles, std::string name) {
  if (cycles == 0) co_return;
  auto thread = co_await scalar_.acquire(1);
  auto lease = co_await hmx_.acquire();
  busy_.begin(sim_.now());
  const Tick start = sim_.now();
  co_await sim_.delay(clock_.cycles_to_ticks(cycles));
  hmx_cycles_.add(cycles);
  busy_.end(sim_.now());
  span("npu.hmx", name, start);
  thread_spans(thread.ids(), name, start);
}

std::uint32_t HexagonNpu::hvx_threads(std::uint32_t requested) const {
  if (requested == 0) throw std::invalid_argument("HVX work on 0 threads");
  return std::min({requested, spec_.hvx.contexts, spec_.scalar_threads});
}

void HexagonNpu::thread_spans(std::uint64_t threads, const std::string& name, Tick start) const {
  if (!report::tracing_hardware(trace_)) return;
  NamedUnits::for_each(threads, [&](std::uint32_t t) { trace_->hardware_span("npu.thread" + std::to_string(t), name, start, sim_.now()); });
}

Task<> HexagonNpu::hvx(double packets, std::uint32_t threads, std::string name) {
  const std::uint32_t n = hvx_threads(threads);
  if (packets <= 0) co_return;
  auto issuers = co_await scalar_.acquire(n);
  auto contexts = co_await hvx_.acquire(n);
  busy_.begin(sim_.now());
  const Tick start = sim_.now();
  const double per_thread = packets / n / spec_.hvx.packets_per_cycle;
  co_await sim_.delay(clock_.cycles_to_ticks(static_cast<std::uint64_t>(std::ceil(per_thread))));
  busy_.end(sim_.now());
  span("npu.hvx", name, start);
  thread_spans(issuers.ids(), name, start);
}

Task<> HexagonNpu::hvx_stream(std::uint64_t bytes, std::uint32_t threads, std::string name, double packets) {
  const std::uint32_t n = hvx_threads(threads);
  if (bytes == 0 && packets <= 0) co_return;
  auto issuers = co_await scalar_.acquire(n);
  auto contexts = co_await hvx_.acquire(n);
  busy_.begin(sim_.now());
  const Tick start = sim_.now();
  TaskList parts;
  if (packets > 0) {
    const double per_thread = packets / n / spec_.hvx.packets_per_cycle;
    parts.push_back(sim_.delay_task(clock_.cycles_to_ticks(static_cast<std::uint64_t>(std::ceil(per_thread)))));
  }
  // Each context streams its share through its own port; the first take the remainder bytes.
  std::uint32_t t = 0;
  NamedUnits::for_each(contexts.ids(), [&](std::uint32_t ctx) {
    const std::uint64_t share = bytes / n + (t++ < bytes % n ? 1 : 0);
    parts.push_back(dram_.transfer(hvx_ports_[ctx], share));
  });
  co_await when_all(sim_, std::move(parts));
  busy_.end(sim_.now());
  span("npu.hvx", name, start);
  thread_spans(issuers.ids(), name, start);
}

Task<> HexagonNpu::graph_call(std::uint32_t ops, std::string name) {
  // One call at a time through the RPC channel (calls from several host threads serialize).
  auto lease = co_await rpc_.acquire();
  const Tick start = sim_.now();
  co_await sim_.delay(spec_.graph.execute_overhead + ops * spec_.graph.op_dispatch);
  span("npu.rpc", name, start);
}

void HexagonNpu::check_mappable(std::uint64_t bytes, std::string_view what) const {
  if (bytes > spec_.session_limit_bytes) {
    throw HardwareLimitError("npu.session_limit", std::string(what) + " needs " + std::to_string(bytes) +
                                                       " B mapped on the NPU, more than its session limit of " +
                                                       std::to_string(spec_.session_limit_bytes) + " B (32-bit address space)");
  }
}

std::shared_ptr<const GemmPlan> HexagonNpu::gemm_plan(const GemmShape& shape, OperandHome home) {
  const auto key = std::tuple{shape.m, shape.k, shape.n, shape.width, static_cast<int>(shape.dtype), static_cast<int>(home), shape.out_bytes};
  if (auto it = gemm_plans_.find(key); it != gemm_plans_.end()) return it->second;
  if (gemm_plans_.size() >= kGemmPlanCacheLimit) gemm_plans_.clear();  // e.g. attention shapes growing with a long decode
  auto plan = std::make_shared<const GemmPlan>(plan_hmx_gemm(spec_, shape, home));
  gemm_plans_.emplace(key, plan);
  return plan;
}

}  // namespace socsim::hw
