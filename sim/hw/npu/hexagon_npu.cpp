#include "sim/hw/npu/hexagon_npu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/core/sync.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/hw/npu/graph_costs.h"

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
  co_await dram_.flow(dma_port_, bytes);
  dma_bytes_.add(bytes);
  busy_.end(sim_.now());
  span("npu.dma", name, start);
}

Task<> HexagonNpu::hmx(std::uint64_t cycles, std::string name) {
  if (cycles == 0) co_return;
  // The engine first, then the hardware thread that drives it (see hvx below).
  auto lease = co_await hmx_.acquire();
  auto thread = co_await scalar_.acquire(1);
  busy_.begin(sim_.now());
  hmx_active_.begin(sim_.now());
  const Tick start = sim_.now();
  co_await sim_.delay(clock_.cycles_to_ticks(cycles));
  hmx_cycles_.add(cycles);
  hmx_active_.end(sim_.now());
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
  // Contexts first, then the hardware threads: a software thread waiting for an HVX context (or
  // for HMX) is blocked in the OS and holds no hardware thread, so work queued for an engine never
  // keeps a thread from work that could run (a held thread in front of HMX stalled a pipeline
  // whose HVX stage was the faster one).
  auto contexts = co_await hvx_.acquire(n);
  auto issuers = co_await scalar_.acquire(n);
  busy_.begin(sim_.now());
  hvx_active_.begin(sim_.now());
  const Tick start = sim_.now();
  const double per_thread = packets / n / spec_.hvx.packets_per_cycle;
  co_await sim_.delay(clock_.cycles_to_ticks(static_cast<std::uint64_t>(std::ceil(per_thread))));
  hvx_active_.end(sim_.now());
  busy_.end(sim_.now());
  span("npu.hvx", name, start);
  thread_spans(issuers.ids(), name, start);
}

Task<> HexagonNpu::hvx_stream(std::uint64_t bytes, std::uint32_t threads, std::string name, double packets) {
  const std::uint32_t n = hvx_threads(threads);
  if (bytes == 0 && packets <= 0) co_return;
  auto contexts = co_await hvx_.acquire(n);  // contexts first, as in hvx()
  auto issuers = co_await scalar_.acquire(n);
  busy_.begin(sim_.now());
  hvx_active_.begin(sim_.now());
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
  hvx_active_.end(sim_.now());
  busy_.end(sim_.now());
  span("npu.hvx", name, start);
  thread_spans(issuers.ids(), name, start);
}

Tick HexagonNpu::graph_call_time(std::uint32_t ops, std::uint64_t client_io_bytes) const {
  return graph_execute_time(spec_.graph, ops, client_io_bytes);
}

Task<> HexagonNpu::graph_call(std::uint32_t ops, std::string name, std::uint64_t client_io_bytes) {
  // One call at a time through the RPC channel (calls from several host threads serialize). The
  // client buffers' synchronization is the call's: cache maintenance and the RPC layer's
  // bookkeeping, no HMX/HVX work (the NPU is not busy), no second trip of the bytes to DRAM.
  auto lease = co_await rpc_.acquire();
  const Tick start = sim_.now();
  co_await sim_.delay(graph_call_time(ops, client_io_bytes));
  span("npu.rpc", name, start);
}

bool HexagonNpu::alone() const {
  return scalar_.idle() && hvx_.idle() && hmx_.idle() && dma_.idle() && rpc_.idle() && !busy_.active() &&
         dram_.active_flows() == 0;
}

NpuRunRecord HexagonNpu::record(Tick duration) const {
  if (!alone()) throw std::logic_error("npu: a run is recorded once it has ended");
  NpuRunRecord r;
  r.duration = duration;
  r.units = {scalar_.stats(), hvx_.stats(), hmx_.stats(), dma_.stats(), rpc_.stats()};
  r.busy = busy_;
  r.hvx_active = hvx_active_;
  r.hmx_active = hmx_active_;
  r.dma_bytes = dma_bytes_.value();
  r.hmx_cycles = hmx_cycles_.value();
  r.dram = dram_.stats();
  r.ports = {dram_.port_stats(port_), dram_.port_stats(dma_port_), dram_.port_stats(core_port_)};
  for (PortId p : hvx_ports_) r.ports.push_back(dram_.port_stats(p));
  return r;
}

void HexagonNpu::absorb(const NpuRunRecord& r, Tick offset) {
  if (!alone() || r.units.size() != 5 || r.ports.size() != 3 + hvx_ports_.size()) {
    throw std::logic_error("npu: a record is replayed only alone, on an NPU of the same shape");
  }
  scalar_.absorb(r.units[0], offset);
  hvx_.absorb(r.units[1], offset);
  hmx_.absorb(r.units[2], offset);
  dma_.absorb(r.units[3], offset);
  rpc_.absorb(r.units[4], offset);
  busy_.absorb(r.busy);
  hvx_active_.absorb(r.hvx_active);
  hmx_active_.absorb(r.hmx_active);
  dma_bytes_.add(r.dma_bytes);
  hmx_cycles_.add(r.hmx_cycles);
  dram_.absorb(r.dram, offset);
  dram_.absorb(port_, r.ports[0]);
  dram_.absorb(dma_port_, r.ports[1]);
  dram_.absorb(core_port_, r.ports[2]);
  for (std::size_t i = 0; i < hvx_ports_.size(); ++i) dram_.absorb(hvx_ports_[i], r.ports[3 + i]);
}

void HexagonNpu::check_mappable(std::uint64_t bytes, std::string_view what) const {
  if (bytes > spec_.session_limit_bytes) {
    throw HardwareLimitError("npu.session_limit", std::string(what) + " needs " + std::to_string(bytes) +
                                                       " B mapped on the NPU, more than its session limit of " +
                                                       std::to_string(spec_.session_limit_bytes) + " B (32-bit address space)");
  }
}

std::shared_ptr<const GemmPlan> HexagonNpu::gemm_plan(const GemmShape& shape, OperandHome home) {
  if (plan_source_) return plan_source_->gemm_plan(shape, home);
  const auto key = std::pair{shape.key(), static_cast<int>(home)};  // every GemmShape field
  if (auto it = gemm_plans_.find(key); it != gemm_plans_.end()) return it->second;
  if (gemm_plans_.size() >= kGemmPlanCacheLimit) gemm_plans_.clear();  // e.g. attention shapes growing with a long decode
  auto plan = std::make_shared<const GemmPlan>(plan_hmx_gemm(spec_, shape, home));
  gemm_plans_.emplace(key, plan);
  return plan;
}

}  // namespace socsim::hw
