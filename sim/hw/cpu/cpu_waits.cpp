// CpuComplex's waits: usleep() with its coarse granularity and busy-polling a shared flag, the
// two halves of HeteroLLM's fast synchronization (4.2: predicted sleep, then poll on a core).
#include <stdexcept>

#include "sim/hw/cpu/cpu_complex.h"

namespace socsim::hw {

Task<> CpuComplex::sleep(Tick duration) {
  const Tick g = spec_.sleep_granularity;
  Tick wake = duration;
  if (g > 0) {
    // The smallest multiple of g that is >= duration, measured from the request.
    const Tick periods = duration / g + (duration % g != 0 ? 1 : 0);
    if (periods > kTickMax / g) throw TimeOverflow("CpuComplex::sleep: wake time overflows");
    wake = periods * g;
  }
  co_await sim_.delay(wake);
}

Task<> CpuComplex::poll_until(Trigger& flag, std::string_view cluster) { return poll_on(flag, find(cluster)); }

Task<> CpuComplex::poll_on(Trigger& flag, std::shared_ptr<CpuCluster> c) {
  CoreGrant grant(c, co_await c->cores().acquire(1), 1);
  const Tick start = sim_.now();
  if (!flag.fired()) {
    co_await flag.wait();
    // Checks happen at start + k * poll_interval; the first one at or after the fire notices.
    const Tick iv = spec_.poll_interval;
    const Tick since = flag.fired_at() - start;
    if (iv > 0) {
      const Tick checks = since / iv + (since % iv != 0 ? 1 : 0);  // not inside co_await (lint-coawait-ternary)
      co_await sim_.delay_until(start + checks * iv);
    }
  }
  if (report::tracing_hardware(trace_)) trace_->hardware_span(track(*c, grant.cores()[0]), "poll", start, sim_.now());
}

Task<> CpuComplex::hold(std::string_view cluster, Tick duration, std::string name) {
  return hold_on(find(cluster), duration, std::move(name));
}

Task<> CpuComplex::hold_on(std::shared_ptr<CpuCluster> c, Tick duration, std::string name) {
  CoreGrant grant(c, co_await c->cores().acquire(1), 1);
  const Tick start = sim_.now();
  co_await sim_.delay(duration);
  if (report::tracing_hardware(trace_)) trace_->hardware_span(track(*c, grant.cores()[0]), std::move(name), start, sim_.now());
}

}  // namespace socsim::hw
