#include "sim/runtime/watchdog_report.h"

#include <fmt/format.h>

#include "sim/hw/soc_state.h"

namespace socsim::runtime {

std::string watchdog_report(RunResult why, Simulator& sim, hw::Soc& soc, const Executor* ex) {
  std::string s = fmt::format("watchdog: the simulation cannot finish ({}) at t = {:.6f} ms after {} events\n",
                              run_result_name(why), static_cast<double>(sim.now()) / 1e9, sim.events_fired());
  s += "units:\n" + hw::describe_units(soc);
  if (ex) s += "executor:\n" + ex->describe_state(4);
  s += "waiting processes:";
  const auto blocked = sim.blocked_processes();
  for (std::size_t i = 0; i < blocked.size() && i < 16; ++i) s += " '" + blocked[i] + "'";
  if (blocked.size() > 16) s += fmt::format(" ... {} more", blocked.size() - 16);
  s += "\npending events:\n" + sim.describe_pending(10);
  return s;
}

void check_run_finished(RunResult r, Simulator& sim, hw::Soc& soc, const Executor* ex) {
  if (r != RunResult::kIdle) throw WatchdogError(watchdog_report(r, sim, soc, ex));
}

}  // namespace socsim::runtime
