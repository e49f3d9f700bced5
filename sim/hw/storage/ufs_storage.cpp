#include "sim/hw/storage/ufs_storage.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/core/sync.h"

namespace socsim::hw {

namespace {

// bytes / bandwidth as Ticks, rounded up; within rounding noise of a whole tick it is that tick,
// so hand-computed timings come out exact (the DRAM model's rule for flow durations).
Tick stream_ticks(std::uint64_t bytes, double bandwidth) {
  const double ps = static_cast<double>(bytes) * 1e12 / bandwidth;
  if (!(ps < 1.8e19)) throw TimeOverflow("storage: request duration overflows 64-bit picoseconds");
  const double nearest = std::round(ps);
  if (std::fabs(ps - nearest) <= std::max(1e-6, ps * 1e-12)) return static_cast<Tick>(nearest);
  return static_cast<Tick>(std::ceil(ps));
}

Task<> wait_for(Simulator& sim, Tick dt) { co_await sim.delay(dt); }

}  // namespace

UfsStorage::UfsStorage(Simulator& sim, const StorageSpec& spec, DramModel& dram, PortId port,
                       report::TraceRecorder* trace)
    : sim_(sim), spec_(spec), dram_(dram), port_(port), trace_(trace), server_(sim, "storage", 1) {
  if (!(spec_.read_bandwidth > 0) || !(spec_.write_bandwidth > 0)) {
    throw std::invalid_argument("storage: read and write bandwidth must be > 0");
  }
  (void)dram_.port_busy(port_);  // throws for an unknown port
}

Task<> UfsStorage::read(std::uint64_t bytes) {
  if (bytes == 0) co_return;
  co_await serve(bytes, spec_.read_latency, spec_.read_bandwidth, "read");
  bytes_read_.add(bytes);
  reads_.add();
}

Task<> UfsStorage::write(std::uint64_t bytes) {
  if (bytes == 0) co_return;
  co_await serve(bytes, spec_.write_latency, spec_.write_bandwidth, "write");
  bytes_written_.add(bytes);
  writes_.add();
}

Task<> UfsStorage::serve(std::uint64_t bytes, Tick latency, double bandwidth, const char* what) {
  const Tick stream = stream_ticks(bytes, bandwidth);
  auto lease = co_await server_.acquire();
  const Tick start = sim_.now();
  // No byte moves before the access latency; then the flash stream and its DRAM side (the DMA
  // writing read data to, or fetching write data from, DRAM) run together.
  co_await sim_.delay(latency);
  TaskList parts;
  parts.push_back(wait_for(sim_, stream));
  parts.push_back(dram_.transfer(port_, bytes));
  co_await when_all(sim_, std::move(parts));
  if (report::tracing_hardware(trace_)) trace_->hardware_span("storage", what, start, sim_.now());
}

}  // namespace socsim::hw
