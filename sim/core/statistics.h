#pragma once
// Statistics are plain objects that models own and update directly (no string lookups on hot
// paths, as SST's statapi and ChampSim do); a StatRegistry names them once so report writers
// (sim/report) can read them, and snapshots let a report subtract phases (prefill vs decode)
// instead of recomputing them.
#include <cstdint>
#include <map>
#include <string>
#include <variant>

#include "sim/core/time.h"

namespace socsim {

class Counter {
 public:
  void add(std::uint64_t n = 1) { value_ += n; }
  std::uint64_t value() const { return value_; }

 private:
  std::uint64_t value_ = 0;
};

// Busy time with nesting: begin/end may overlap (several users of one unit); the unit counts as
// busy while at least one is active.
class BusyTime {
 public:
  void begin(Tick now);
  void end(Tick now);
  bool active() const { return depth_ > 0; }
  // Busy ticks up to `now` (includes an interval still open).
  Tick busy(Tick now) const { return depth_ > 0 ? total_ + (now - since_) : total_; }
  // Adds the busy time of `recorded`, a copy of this statistic that ran an idle-to-idle stretch
  // elsewhere (an NPU run replayed: sim/runtime/npu_alone_replay.h). Both must be idle.
  void absorb(const BusyTime& recorded);

 private:
  Tick total_ = 0;
  Tick since_ = 0;
  std::uint32_t depth_ = 0;
};

// Time-weighted value (queue length, units in use, bandwidth): integral of value over time.
class TimeWeighted {
 public:
  void set(Tick now, double value);
  double value() const { return value_; }
  double max() const { return max_; }
  // Integral of value dt in value·ps up to `now`.
  double integral(Tick now) const { return integral_ + value_ * static_cast<double>(now - last_); }
  double average(Tick now) const { return now == 0 ? 0.0 : integral(now) / static_cast<double>(now); }
  // Adds `recorded`, a copy that started at time 0 at value 0 and ended at value 0, as if it had
  // run from `offset` here. This one must be at value 0 (its integral gains nothing meanwhile).
  void absorb(const TimeWeighted& recorded, Tick offset);

 private:
  double value_ = 0.0;
  double max_ = 0.0;
  double integral_ = 0.0;
  Tick last_ = 0;
};

// Names statistics for writers. Holds non-owning pointers: the owner must outlive the registry's
// use. Names are dotted paths ("npu.hmx.busy"); std::map keeps report order deterministic.
class StatRegistry {
 public:
  using Stat = std::variant<const Counter*, const BusyTime*, const TimeWeighted*>;
  void add(std::string name, const Counter& c);
  void add(std::string name, const BusyTime& b);
  void add(std::string name, const TimeWeighted& t);
  const std::map<std::string, Stat>& all() const { return stats_; }

  // A snapshot of every statistic as a number at time `now` (counters: value; busy: ms;
  // time-weighted: average over [0, now]).
  std::map<std::string, double> snapshot(Tick now) const;

 private:
  void add_stat(std::string name, Stat s);
  std::map<std::string, Stat> stats_;
};

}  // namespace socsim
