// Engine throughput. The foundation issue asks for >= 10 million events per second on one core
// for a schedule/fire loop; these report items_per_second = events per second.
#include <benchmark/benchmark.h>

#include "sim/core/simulator.h"

namespace socsim {
namespace {

// Each event reschedules itself `period` later: a steady-state queue of `width` events, as when
// that many units are busy at once.
struct Ticker {
  Simulator* sim;
  Tick period;
  std::uint64_t remaining;
  static void fire(void* p) {
    auto* t = static_cast<Ticker*>(p);
    if (t->remaining-- > 0) t->sim->schedule_in(t->period, &Ticker::fire, t);
  }
};

void BM_ScheduleFire(benchmark::State& state) {
  const auto width = static_cast<std::size_t>(state.range(0));
  const std::uint64_t per_ticker = 1'000'000 / width;
  std::uint64_t events = 0;
  for (auto _ : state) {
    Simulator sim;
    std::vector<Ticker> tickers(width);
    for (std::size_t i = 0; i < width; ++i) {
      tickers[i] = Ticker{&sim, 97 + i, per_ticker};
      sim.schedule_at(i, &Ticker::fire, &tickers[i]);
    }
    sim.run();
    events += sim.events_fired();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}
BENCHMARK(BM_ScheduleFire)->Arg(1)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond);

Task<> delay_loop(Simulator& sim, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) co_await sim.delay(10);
}

void BM_CoroutineDelay(benchmark::State& state) {
  const auto procs = static_cast<std::uint64_t>(state.range(0));
  std::uint64_t events = 0;
  for (auto _ : state) {
    Simulator sim;
    for (std::uint64_t p = 0; p < procs; ++p) sim.spawn(delay_loop(sim, 1'000'000 / procs), "p");
    sim.run();
    events += sim.events_fired();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}
BENCHMARK(BM_CoroutineDelay)->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace socsim
