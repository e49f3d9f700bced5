#include "sim/hw/memory/dram_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace socsim::hw {

namespace {

// Below this a flow is done: remaining bytes are doubles, and rate x time rarely cancels exactly.
constexpr double kDoneBytes = 1e-6;

bool positive_finite(double x) { return x > 0.0 && std::isfinite(x); }

// Ticks to move `remaining` bytes at `rate`, rounded up so no flow ends before its last byte. A
// value within rounding noise of a whole tick is that tick (1e6 B at 40e9 B/s may compute as
// 25000000.000000004 ps), so hand-computed cases come out exact. Never 0: a flow still active has
// bytes left, and a wake-up at now could not advance time.
Tick drain_ticks(double remaining, double rate) {
  const double ps = remaining / rate * 1e12;
  if (!(ps < 1.8e19)) throw TimeOverflow("dram: flow duration overflows 64-bit picoseconds");
  const RoundedUp r = round_nonnegative(ps);  // (ps >= 0: both operands are)
  const double noise = std::max(1e-6, ps * 1e-12);
  const Tick t = r.distance <= noise ? r.nearest : r.ceil;
  return std::max<Tick>(t, 1);
}

}  // namespace

DramModel::FlowWaiter::~FlowWaiter() {
  if (!model || !in_flight) return;
  try {
    model->cancel_flow(seq);
  } catch (...) {
    // Cancelling recomputes the others' rates, which can fail as the simulation is torn down
    // after an error (a duration that overflows); the flow is out of the list by then, and a
    // destructor must not throw.
  }
}

DramModel::FlowWaiter DramModel::flow(PortId port, std::uint64_t bytes) {
  check_port(port, "flow");
  return FlowWaiter(*this, port, bytes);
}

DramModel::ComputeBesideFlow DramModel::compute_beside_flow(Tick compute, PortId port, std::uint64_t bytes) {
  check_port(port, "compute_beside_flow");
  return ComputeBesideFlow(*this, compute, port, bytes);
}

void DramModel::ComputeBesideFlow::await_suspend(std::coroutine_handle<> caller) {
  caller_ = caller;
  if (flow_.bytes == 0) return sim_.resume_at(sim_.checked_add(sim_.now(), compute_), caller);  // as sim.delay(compute)
  if (compute_ == 0) {
    // As flow(): the flow begins now and resumes the caller itself.
    flow_.done = nullptr;
    flow_.handle = caller;
    return flow_.begin();
  }
  sim_.reserve_events(2);  // may throw; then nothing is scheduled
  sim_.schedule_frame_event_at(sim_.now(), start_compute_);
  sim_.schedule_frame_event_at(sim_.now(), start_flow_);
}

void DramModel::ComputeBesideFlow::start_compute(void* self) {
  auto* me = static_cast<ComputeBesideFlow*>(self);
  me->sim_.schedule_frame_event_at(me->sim_.checked_add(me->sim_.now(), me->compute_), me->compute_done_);  // as sim.delay(compute)
}

void DramModel::ComputeBesideFlow::start_flow(void* self) { static_cast<ComputeBesideFlow*>(self)->flow_.begin(); }

void DramModel::ComputeBesideFlow::compute_done(void* self) { static_cast<ComputeBesideFlow*>(self)->part_done(); }
void DramModel::ComputeBesideFlow::flow_done(void* self) { static_cast<ComputeBesideFlow*>(self)->part_done(); }

void DramModel::ComputeBesideFlow::part_done() {
  // The last part resumes the caller through the queue, as when_all's join does.
  if (--pending_ == 0) sim_.resume_at(sim_.now(), caller_);
}

DramModel::DramModel(Simulator& sim, double peak_bytes_per_s, std::vector<double> concurrency_efficiency)
    : sim_(sim), peak_(peak_bytes_per_s), efficiency_(std::move(concurrency_efficiency)), last_update_(sim.now()) {
  // A SoC has a couple of dozen ports: no reallocation while they are added.
  constexpr std::size_t kTypicalPorts = 32;
  tree_.caps.reserve(kTypicalPorts);
  tree_.parents.reserve(kTypicalPorts);
  ports_.reserve(kTypicalPorts);
  flows_at_.reserve(kTypicalPorts);
  port_key_.reserve(kTypicalPorts);
  if (!positive_finite(peak_)) throw std::invalid_argument("dram: peak bandwidth must be positive and finite");
  if (efficiency_.empty()) efficiency_ = {1.0};
  for (double e : efficiency_) {
    if (!(e > 0.0 && e <= 1.0)) {
      throw std::invalid_argument("dram: concurrency efficiency " + std::to_string(e) + " outside (0, 1]");
    }
  }
}

DramModel::~DramModel() {
  for (Flow& f : flows_) {
    if (f.waiter) f.waiter->model = nullptr;
  }
}

PortId DramModel::add_port(std::string name, double cap_bytes_per_s, std::optional<PortId> parent) {
  if (name.empty()) throw std::invalid_argument("dram: port name is empty");
  if (!positive_finite(cap_bytes_per_s)) {
    throw std::invalid_argument("dram: port '" + name + "' cap must be positive and finite");
  }
  if (parent) check_port(*parent, "add_port parent");
  for (const Port& p : ports_) {
    if (p.name == name) throw std::invalid_argument("dram: port '" + name + "' added twice");
  }
  const auto id = static_cast<PortId>(ports_.size());
  tree_.caps.push_back(cap_bytes_per_s);
  tree_.parents.push_back(parent ? static_cast<std::int32_t>(*parent) : kRootParent);
  flows_at_.push_back(0);
  // splitmix64 of the port's index: a fixed, well-mixed constant per port.
  std::uint64_t z = (id + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  port_key_.push_back(z ^ (z >> 31));
  if (!fair_memo_.empty()) fair_memo_.clear();  // the tree changed
  ports_.push_back(Port{std::move(name), parent, 0, 0, BusyTime{}});
  return id;
}

double DramModel::port_cap(PortId p) const {
  check_port(p, "port_cap");
  return tree_.caps[p];
}

std::optional<PortId> DramModel::port_parent(PortId p) const {
  check_port(p, "port_parent");
  return ports_[p].parent;
}

PortId DramModel::port(std::string_view name) const {
  // A linear search: ports are few, looked up by name only while units are wired, and a map
  // of names was most of what building a SoC cost (the profilers build one per profiled job).
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    if (ports_[i].name == name) return static_cast<PortId>(i);
  }
  std::vector<std::string> names = port_names();
  std::sort(names.begin(), names.end());
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw std::out_of_range("dram: no port '" + std::string(name) + "' (known: " + known + ")");
}

void DramModel::check_port(PortId p, const char* what) const {
  if (p >= ports_.size()) {
    throw std::invalid_argument(std::string("dram: ") + what + ": unknown port id " + std::to_string(p) + " (" +
                                std::to_string(ports_.size()) + " ports)");
  }
}

Task<> DramModel::transfer(PortId port, std::uint64_t bytes) {
  // Checked here rather than in the coroutine body, so a bad id fails at the call site.
  check_port(port, "transfer");
  return run_transfer(port, bytes);
}

Task<> DramModel::run_transfer(PortId port, std::uint64_t bytes) {
  if (bytes == 0) co_return;
  co_await FlowWaiter(*this, port, bytes);
}

void DramModel::start_flow(PortId port, std::uint64_t bytes, void (*on_done)(void*), void* ctx) {
  check_port(port, "start_flow");
  if (bytes == 0) {
    if (on_done) on_done(ctx);
    return;
  }
  begin_flow(port, bytes, on_done, ctx, nullptr);
}

std::uint64_t DramModel::begin_flow(PortId port, std::uint64_t bytes, EventFn on_done, void* ctx,
                                    FlowWaiter* waiter) {
  advance();
  retire_done();
  Flow f{next_seq_++, port, bytes, static_cast<double>(bytes), 0.0, kTickMax, on_done, ctx, waiter};
  account_start(f);
  flows_.push_back(f);
  try {
    recompute();
  } catch (...) {
    // The flow cannot be timed (its duration overflows 64-bit picoseconds): it never started.
    // Take it out again, so nothing keeps pointing at a caller whose frame unwinds now.
    account_end(flows_.back(), 0);
    flows_.pop_back();
    throw;
  }
  return f.seq;
}

void DramModel::cancel_flow(std::uint64_t seq) {
  advance();
  // flows_ is sorted by seq (appended in start order, removed stably).
  auto it = std::lower_bound(flows_.begin(), flows_.end(), seq,
                             [](const Flow& f, std::uint64_t s) { return f.seq < s; });
  if (it == flows_.end() || it->seq != seq) return;
  // The bytes already moved did load the DRAM; they stay in the totals.
  account_end(*it, moved_now(*it));
  flows_.erase(it);
  retire_done();
  recompute();
}

void DramModel::on_wakeup(void* self) {
  auto* m = static_cast<DramModel*>(self);
  if (m->sim_.now() != m->armed_) return;  // superseded by a later recomputation
  m->advance();
  m->retire_done();
  m->recompute();
}

void DramModel::advance() {
  const Tick now = sim_.now();
  if (now == last_update_) return;
  const double elapsed = static_cast<double>(now - last_update_);
  for (Flow& f : flows_) f.remaining = std::max(0.0, f.remaining - f.rate * elapsed / 1e12);
  last_update_ = now;
}

void DramModel::retire_done() {
  const Tick now = sim_.now();
  // Stable compaction keeps start order, which is also the order of the notifications below.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    Flow& f = flows_[i];
    // The computed completion decides, not the double: it is what the wake-up was armed for.
    if (f.finish > now && f.remaining >= kDoneBytes) {
      flows_[kept++] = f;
      continue;
    }
    account_end(f, f.bytes);
    // Through the event queue, never inline: the woken code may start flows, and this loop is
    // still running.
    if (f.waiter) {
      f.waiter->in_flight = false;
      if (f.waiter->done) {
        sim_.schedule_frame_event_at(now, *f.waiter->done);
      } else {
        sim_.resume_at(now, f.waiter->handle);
      }
    } else if (f.on_done) {
      sim_.schedule_at(now, f.on_done, f.ctx);
    }
  }
  flows_.resize(kept);
}

void DramModel::recompute() {
  const Tick now = sim_.now();
  const std::vector<double>* rates = &rates_;
  if (flows_.empty()) {
    rates_.assign(ports_.size(), 0.0);
  } else if (auto hit = fair_memo_.find(counts_key_); hit != fair_memo_.end() && hit->second.counts == flows_at_) {
    rates = &hit->second.rates;
  } else {
    max_min_fair_by_count(tree_, peak_ * efficiency(active_masters_), flows_at_, fair_scratch_, rates_);
    if (fair_memo_.size() >= kFairMemoLimit) fair_memo_.clear();
    fair_memo_.insert_or_assign(counts_key_, FairMemoEntry{flows_at_, rates_});
  }
  const std::vector<double>& rate_by_port = *rates;
  total_rate_ = 0.0;
  Tick earliest = kTickMax;
  for (Flow& f : flows_) {
    f.rate = rate_by_port[f.port];
    if (!(f.rate > 0.0)) throw std::logic_error("dram: flow on port '" + ports_[f.port].name + "' got no bandwidth");
    f.finish = sim_.checked_add(now, drain_ticks(f.remaining, f.rate));
    earliest = std::min(earliest, f.finish);
    total_rate_ += f.rate;
  }
  note_rates(rate_by_port);
  // One wake-up at the earliest completion. A wake-up armed earlier for another time stays in the
  // queue and is ignored when it fires (the engine has no cancel).
  if (earliest != kTickMax && earliest != armed_) sim_.schedule_at(earliest, &on_wakeup, this);
  armed_ = earliest;
}

double DramModel::efficiency(std::size_t masters) const {
  if (masters == 0) return 1.0;
  return efficiency_[std::min(masters, efficiency_.size()) - 1];
}

}  // namespace socsim::hw
