#include "sim/core/statistics.h"

#include <algorithm>
#include <stdexcept>

namespace socsim {

void BusyTime::begin(Tick now) {
  if (depth_++ == 0) since_ = now;
}

void BusyTime::end(Tick now) {
  if (depth_ == 0) throw std::logic_error("BusyTime::end without begin");
  if (--depth_ == 0) total_ += now - since_;
}

void TimeWeighted::set(Tick now, double value) {
  if (now < last_) throw std::logic_error("TimeWeighted::set: time went backwards");
  integral_ += value_ * static_cast<double>(now - last_);
  last_ = now;
  value_ = value;
  max_ = std::max(max_, value);
}

void BusyTime::absorb(const BusyTime& recorded) {
  if (depth_ != 0 || recorded.depth_ != 0) throw std::logic_error("BusyTime::absorb: both must be idle");
  total_ += recorded.total_;
}

void TimeWeighted::absorb(const TimeWeighted& recorded, Tick offset) {
  if (value_ != 0.0 || recorded.value_ != 0.0) throw std::logic_error("TimeWeighted::absorb: both must be at 0");
  if (offset < last_) throw std::logic_error("TimeWeighted::absorb: time went backwards");
  integral_ += recorded.integral_;
  max_ = std::max(max_, recorded.max_);
  last_ = offset + recorded.last_;
}

void StatRegistry::add_stat(std::string name, Stat s) {
  if (!stats_.emplace(name, s).second) throw std::logic_error("statistic registered twice: " + name);
}
void StatRegistry::add(std::string name, const Counter& c) { add_stat(std::move(name), &c); }
void StatRegistry::add(std::string name, const BusyTime& b) { add_stat(std::move(name), &b); }
void StatRegistry::add(std::string name, const TimeWeighted& t) { add_stat(std::move(name), &t); }

std::map<std::string, double> StatRegistry::snapshot(Tick now) const {
  std::map<std::string, double> out;
  for (const auto& [name, stat] : stats_) {
    if (auto c = std::get_if<const Counter*>(&stat)) out[name] = static_cast<double>((*c)->value());
    else if (auto b = std::get_if<const BusyTime*>(&stat)) out[name] = to_ms((*b)->busy(now));
    else out[name] = std::get<const TimeWeighted*>(stat)->average(now);
  }
  return out;
}

}  // namespace socsim
