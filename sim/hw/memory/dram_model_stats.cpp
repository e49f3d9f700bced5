// DramModel bookkeeping for reports: per-port counters and busy time, bytes moved, the aggregate
// bandwidth statistic and the optional timeline. Kept apart from the flow mechanics in
// dram_model.cpp; nothing here affects timing.
#include "sim/hw/memory/dram_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace socsim::hw {

void DramModel::account_start(const Flow& f) {
  const Tick now = sim_.now();
  ++flows_at_[f.port];
  counts_key_ += port_key_[f.port];
  busy_.begin(now);
  for (std::optional<PortId> p = f.port; p; p = ports_[*p].parent) {
    Port& port = ports_[*p];
    port.busy.begin(now);
    if (port.subtree_flows++ == 0 && !port.parent) ++active_masters_;
  }
}

void DramModel::account_end(const Flow& f, std::uint64_t moved_bytes) {
  const Tick now = sim_.now();
  --flows_at_[f.port];
  counts_key_ -= port_key_[f.port];
  busy_.end(now);
  completed_bytes_ += moved_bytes;
  for (std::optional<PortId> p = f.port; p; p = ports_[*p].parent) {
    Port& port = ports_[*p];
    port.busy.end(now);
    port.completed_bytes += moved_bytes;
    if (--port.subtree_flows == 0 && !port.parent) --active_masters_;
  }
}

std::uint64_t DramModel::moved_now(const Flow& f) const {
  // remaining is kept at last_update_; extrapolate at the current rate without mutating.
  const double elapsed = static_cast<double>(sim_.now() - last_update_);
  const double remaining = std::max(0.0, f.remaining - f.rate * elapsed / 1e12);
  const double moved = std::floor(static_cast<double>(f.bytes) - remaining);
  if (moved <= 0.0) return 0;
  return std::min(f.bytes, static_cast<std::uint64_t>(moved));
}

std::uint64_t DramModel::total_bytes() const {
  std::uint64_t total = completed_bytes_;
  for (const Flow& f : flows_) total += moved_now(f);
  return total;
}

std::uint64_t DramModel::port_bytes(PortId p) const {
  check_port(p, "port_bytes");
  std::uint64_t total = ports_[p].completed_bytes;
  for (const Flow& f : flows_) {
    for (std::optional<PortId> q = f.port; q; q = ports_[*q].parent) {
      if (*q == p) {
        total += moved_now(f);
        break;
      }
    }
  }
  return total;
}

double DramModel::current_bandwidth() const { return flows_.empty() ? 0.0 : total_rate_; }

const BusyTime& DramModel::port_busy(PortId p) const {
  check_port(p, "port_busy");
  return ports_[p].busy;
}

const std::string& DramModel::port_name(PortId p) const {
  check_port(p, "port_name");
  return ports_[p].name;
}

std::vector<std::string> DramModel::port_names() const {
  std::vector<std::string> names;
  names.reserve(ports_.size());
  for (const Port& p : ports_) names.push_back(p.name);
  return names;
}

const TimeWeighted& DramModel::bandwidth() const {
  if (bandwidth_pending_) {
    bandwidth_.set(pending_time_, pending_value_);
    bandwidth_pending_ = false;
  }
  return bandwidth_;
}

DramModel::Stats DramModel::stats() const {
  if (!flows_.empty() || record_timeline_) throw std::logic_error("dram: stats of a stretch need an idle model without a timeline");
  return {busy_, completed_bytes_, bandwidth()};
}

DramModel::PortStats DramModel::port_stats(PortId p) const {
  check_port(p, "port_stats");
  return {ports_[p].busy, ports_[p].completed_bytes};
}

void DramModel::absorb(const Stats& recorded, Tick offset) {
  if (!flows_.empty() || record_timeline_) throw std::logic_error("dram: absorbs a stretch only while idle, without a timeline");
  busy_.absorb(recorded.busy);
  completed_bytes_ += recorded.completed_bytes;
  bandwidth();  // publishes the pending value (0: no flow since it was set)
  bandwidth_.absorb(recorded.bandwidth, offset);
}

void DramModel::absorb(PortId p, const PortStats& recorded) {
  check_port(p, "absorb");
  ports_[p].busy.absorb(recorded.busy);
  ports_[p].completed_bytes += recorded.completed_bytes;
}

void DramModel::note_rates(const std::vector<double>& rate_by_port) {
  const Tick now = sim_.now();
  // Flows that start together cause several recomputations at one tick; only the last lasts any
  // time. Publishing a value only once time moves on keeps max() free of zero-length peaks.
  if (bandwidth_pending_ && pending_time_ != now) bandwidth_.set(pending_time_, pending_value_);
  bandwidth_pending_ = true;
  pending_time_ = now;
  pending_value_ = total_rate_;

  if (!record_timeline_) return;
  Sample s{now, total_rate_, std::vector<double>(ports_.size(), 0.0)};
  for (std::size_t p = 0; p < ports_.size(); ++p) s.port_bps[p] = flows_at_[p] * rate_by_port[p];
  // Children follow their parents: a reverse pass adds each subtree into its parent.
  for (std::size_t p = ports_.size(); p-- > 0;) {
    if (ports_[p].parent) s.port_bps[*ports_[p].parent] += s.port_bps[p];
  }
  push_sample(std::move(s));
}

namespace {

// `into` holds for `into_ticks`, `next` for `next_ticks` after it: `into` becomes their
// time-weighted average over both.
void fold(DramModel::Sample& into, Tick into_ticks, const DramModel::Sample& next, Tick next_ticks) {
  const double a = static_cast<double>(into_ticks), b = static_cast<double>(next_ticks), w = a + b;
  if (w <= 0) return;
  into.total_bps = (into.total_bps * a + next.total_bps * b) / w;
  for (std::size_t p = 0; p < into.port_bps.size(); ++p) into.port_bps[p] = (into.port_bps[p] * a + next.port_bps[p] * b) / w;
}

}  // namespace

void DramModel::push_sample(Sample s) {
  const Tick now = s.time;
  if (!timeline_.empty() && timeline_.back().time == now) {
    timeline_.back() = std::move(s);
    return;
  }
  // The last sample ends now. While the one before it spans less than the spacing, the last folds
  // into it, so every sample but the newest covers at least the spacing (once there is one).
  if (sample_spacing_ > 0 && timeline_.size() >= 2) {
    Sample& before = timeline_[timeline_.size() - 2];
    const Sample& last = timeline_.back();
    if (last.time - before.time < sample_spacing_) {
      fold(before, last.time - before.time, last, now - last.time);
      timeline_.pop_back();
    }
  }
  timeline_.push_back(std::move(s));
  if (timeline_.size() > timeline_limit_) coarsen_timeline();
}

void DramModel::coarsen_timeline() {
  // Twice the spacing, and at least what brings the timeline to half the limit: memory stays
  // bounded however long the run, and the resolution stays uniform over the run.
  const Tick span = timeline_.back().time - timeline_.front().time;
  sample_spacing_ = std::max<Tick>(sample_spacing_ * 2, span / (timeline_limit_ / 2) + 1);
  std::vector<Sample> out;
  out.reserve(timeline_limit_ / 2 + 2);
  for (std::size_t i = 0; i + 1 < timeline_.size(); ++i) {
    Sample& s = timeline_[i];
    const Tick end = timeline_[i + 1].time;
    if (!out.empty() && s.time - out.back().time < sample_spacing_) {
      fold(out.back(), s.time - out.back().time, s, end - s.time);
    } else {
      out.push_back(std::move(s));
    }
  }
  out.push_back(std::move(timeline_.back()));
  timeline_ = std::move(out);
}

}  // namespace socsim::hw
