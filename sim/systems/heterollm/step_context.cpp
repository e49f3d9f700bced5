#include "sim/systems/heterollm/step_context.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace socsim::systems::heterollm {

std::pair<Tick, Tick> share_dram(const SharedRun& a, const SharedRun& b, double capacity) {
  const Tick alone_a = a.start + a.alone, alone_b = b.start + b.alone;
  const double per_tick = capacity / static_cast<double>(kSecond);
  // (A part moving nothing is no master on DRAM: the other runs as alone.)
  if (a.alone == 0 || b.alone == 0 || !(a.bytes > 0) || !(b.bytes > 0) || !(per_tick > 0)) return {alone_a, alone_b};
  // Each flow's rate alone, bytes per tick: its cap, or faster if its time alone says so.
  const auto rate_of = [](const SharedRun& r) {
    return std::max(r.rate / static_cast<double>(kSecond), r.bytes / static_cast<double>(r.alone));
  };
  const double ra = rate_of(a), rb = rate_of(b);
  // While both flow: max-min fair shares of the capacity under the rates.
  double sa = ra, sb = rb;
  if (ra + rb > per_tick) {
    const double half = per_tick / 2;
    if (ra <= half) {
      sb = per_tick - ra;
    } else if (rb <= half) {
      sa = per_tick - rb;
    } else {
      sa = sb = half;
    }
  }
  // The earlier flow alone until the later starts (or it ends), then both at their shares until
  // one ends, then the other alone. Times from the earlier start: the same parts later by any
  // number of ticks end later by exactly that many (StepContext's repeat shortcut relies on it).
  const Tick origin = std::min(a.start, b.start);
  double left_a = a.bytes, left_b = b.bytes;
  double now = 0, flow_a = 0, flow_b = 0;
  const double later = static_cast<double>(std::max(a.start, b.start) - origin);
  if (a.start < b.start) {
    const double run = std::min(left_a / ra, later - now);
    left_a -= run * ra;
    if (left_a <= 0 || run < later - now) left_a = 0, flow_a = now + run;
  } else if (b.start < a.start) {
    const double run = std::min(left_b / rb, later - now);
    left_b -= run * rb;
    if (left_b <= 0 || run < later - now) left_b = 0, flow_b = now + run;
  }
  now = later;
  if (left_a > 0 && left_b > 0) {
    const double both = std::min(left_a / sa, left_b / sb);
    now += both;
    if (left_a / sa <= both) left_a = 0, flow_a = now;
    else left_a -= both * sa;
    if (left_b / sb <= both) left_b = 0, flow_b = now;
    else left_b -= both * sb;
  }
  if (left_a > 0) flow_a = now + left_a / ra;
  if (left_b > 0) flow_b = now + left_b / rb;
  const auto tick = [origin](double t, Tick floor) { return std::max(floor, origin + static_cast<Tick>(std::ceil(t))); };
  return {tick(flow_a, alone_a), tick(flow_b, alone_b)};
}

void StepContext::advance(const Item& item, Replay& r, const std::vector<GroupCost>& groups, Tick submit, bool sharing) const {
  Tick &host = r.host, &queue = r.queue, &npu_free = r.npu_free;
  switch (item.kind) {
    case Kind::kKernel:
      host += submit;
      queue = std::max(queue, host) + static_cast<Tick>(item.value);
      break;
    case Kind::kGroup: {
      if (item.value >= groups.size()) throw std::logic_error("StepContext: a group without a cost");
      const GroupCost& g = groups[item.value];
      // The NPU part: its graph called once the host has submitted the kernels before it and the
      // NPU is free; its work starts when the call is done and the queue has run those kernels.
      Tick npu_start = 0, npu_end = 0;
      if (g.npu) {
        const Tick call = std::min(g.npu_call, g.npu_time);
        npu_start = std::max({std::max(host, npu_free) + call, host, queue});
        npu_end = npu_start + (g.npu_time - call);
      }
      // The GPU part's kernels, each submitted and queued: a kernel longer than a submission
      // hides the next one's.
      Tick gpu_start = 0;
      for (std::uint32_t i = 0; i < g.submissions; ++i) {
        const Tick share = g.gpu / g.submissions + (i < g.gpu % g.submissions ? 1 : 0);
        host += submit;
        if (i == 0) gpu_start = std::max(queue, host);
        queue = std::max(queue, host) + share;
      }
      // Both parts streaming at once share DRAM (each part's time above is alone).
      if (sharing && shared_ > 0 && g.npu && g.submissions > 0) {
        const auto [gpu_end, npu_shared_end] =
            share_dram({gpu_start, queue - gpu_start, g.gpu_bytes, g.gpu_rate}, {npu_start, npu_end - npu_start, g.npu_bytes, g.npu_rate}, shared_);
        queue = gpu_end;
        npu_end = npu_shared_end;
      }
      // The kernels after the op need the NPU part's output: the host submits them once it ends.
      if (g.npu) {
        npu_free = npu_end;
        host = std::max(host, npu_end);
      }
      break;
    }
    case Kind::kHostWait:
      host = queue = std::max(host, queue);
      break;
  }
}

void StepContext::find_repeats() const {
  analysed_ = true;
  repeat_begin_ = period_ = blocks_ = 0;
  const std::size_t n = items_.size();
  // O(n^2 / 3) comparisons: a model's step (a few hundred items) is searched in about a
  // millisecond, 16,384 items in about 0.3 s; past that the replay runs whole.
  if (n > 16384) return;
  const auto same = [&](std::size_t i, std::size_t j) { return items_[i].kind == items_[j].kind && items_[i].value == items_[j].value; };
  std::size_t best = 0;
  for (std::size_t p = 1; p <= n / 3; ++p) {
    // Runs of i with item i equal to item i + p: a run [s, s + len) makes [s, s + len + p) p-periodic.
    for (std::size_t s = 0; s + p < n;) {
      std::size_t len = 0;
      while (s + len + p < n && same(s + len, s + len + p)) ++len;
      const std::size_t blocks = (len + p) / p;
      if (blocks >= 3 && blocks * p > best) best = blocks * p, repeat_begin_ = s, period_ = p, blocks_ = blocks;
      s += len + 1;
    }
  }
}

Tick StepContext::time(const std::vector<GroupCost>& groups, Tick submit, bool sharing, const Replay& from) const {
  Replay r = from;
  if (shortcut_ && !analysed_) find_repeats();
  const std::size_t repeat_end = shortcut_ ? repeat_begin_ + period_ * blocks_ : 0;
  // At each block boundary: the host's time and the queue's and the NPU's leads over it (a
  // queue or NPU behind the host acts as if at the host: every step reads them through a max
  // with it).
  bool seen = false;
  Tick host_then = 0, queue_lead = 0, npu_lead = 0;
  while (r.next < items_.size()) {
    if (r.next >= repeat_begin_ && r.next < repeat_end && (r.next - repeat_begin_) % period_ == 0) {
      const Tick q = std::max(r.queue, r.host) - r.host, p = std::max(r.npu_free, r.host) - r.host;
      if (seen && q == queue_lead && p == npu_lead) {
        const auto left = static_cast<Tick>((repeat_end - r.next) / period_);
        r.host += left * (r.host - host_then);
        r.queue = r.host + q, r.npu_free = r.host + p;
        skipped_ += repeat_end - r.next;
        r.next = repeat_end;
        seen = false;
        continue;
      }
      seen = true, host_then = r.host, queue_lead = q, npu_lead = p;
    }
    advance(items_[r.next], r, groups, submit, sharing);
    ++r.next;
  }
  return std::max(r.host, r.queue);
}

Tick StepContext::time(const std::vector<GroupCost>& groups, Tick submit, bool sharing) const { return time(groups, submit, sharing, Replay{}); }

StepContext::Replay StepContext::before(std::uint32_t group, const std::vector<GroupCost>& groups, Tick submit, bool sharing) const {
  Replay r;
  for (; r.next < items_.size(); ++r.next) {
    const Item& item = items_[r.next];
    if (item.kind == Kind::kGroup && item.value == group) break;
    advance(item, r, groups, submit, sharing);
  }
  return r;
}

}  // namespace socsim::systems::heterollm
