#include "sim/core/run_progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace socsim {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

struct ScopedRunProgress::Reporter {
  double after_s, every_s;
  std::FILE* out;
  bool terminal;
  Clock::time_point start, last;
  bool printed = false;
  const char* phase_now = "planning";  // the last tick's phase: a search reports within it
  ProgressSnapshot s;
};

namespace {

using Reporter = ScopedRunProgress::Reporter;
thread_local Reporter* t_reporter = nullptr;

// `search_tick`: a search's own tick, which keeps the phase it runs in; any other tick ends it.
void maybe_print(Reporter& r, const char* phase, bool search_tick = false) {
  if (!search_tick) r.s.search = nullptr;
  r.phase_now = phase;
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - r.start).count();
  if (elapsed < r.after_s) return;
  if (r.printed && std::chrono::duration<double>(now - r.last).count() < r.every_s) return;
  r.last = now;
  r.s.elapsed_s = elapsed;
  r.s.phase = phase;
  const std::string text = "socsim: " + progress_text(r.s);
  if (r.terminal) {
    struct winsize ws {};
    const std::size_t columns = ::ioctl(fileno(r.out), TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
    std::fprintf(r.out, "\r%s\033[K", fit_terminal_line(text, columns).c_str());
  } else {
    std::fprintf(r.out, "%s\n", text.c_str());
  }
  std::fflush(r.out);
  r.printed = true;
}

std::string duration_text(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

std::string progress_text(const ProgressSnapshot& s) {
  std::string t = fmt::format("{} for {}", s.phase, duration_text(s.elapsed_s));
  if (s.phase == "serving") {
    t += fmt::format(": call {} of {}", s.call, s.calls);
    if (s.service_runs > 1) t += fmt::format(" of service run {} of {} (one per context count)", s.service_run, s.service_runs);
    // The share done, counting each run as one (their traces are of about one length).
    const double runs = static_cast<double>(std::max<std::uint32_t>(1, s.service_runs));
    const double done = (static_cast<double>(std::max<std::uint32_t>(1, s.service_run)) - 1 +
                         (s.calls > 0 ? static_cast<double>(s.call) / static_cast<double>(s.calls) : 0.0)) / runs;
    // From 1% done, or from 30 s on when the whole is longer: a search of 1024 runs of functional
    // mode took 8 min to reach 1%, its 17 hours unannounced until then.
    if (done > 0 && done < 1 && (done > 0.01 || s.elapsed_s >= 30)) {
      t += ", about " + duration_text(s.elapsed_s * (1 - done) / done) + " left";
    }
    return t;
  }
  if (s.phase == "validating") {
    t += fmt::format(": claim {} of {}", std::min(s.claims_done + 1, s.claims_total), s.claims_total);
    if (s.claims_done >= 1 && s.claims_done < s.claims_total) {
      t += ", about " + duration_text(s.elapsed_s / static_cast<double>(s.claims_done) * static_cast<double>(s.claims_total - s.claims_done)) + " left";
    }
    return t;
  }
  if (s.phase == "planning") {
    // (A search before the plan's first job names only itself.)
    if (s.search == nullptr || s.jobs > 0) t += fmt::format(": {} jobs so far", s.jobs);
    if (s.search != nullptr) t += fmt::format("{} {} {} of {}", s.jobs > 0 ? "," : ":", s.search, s.search_i, s.search_n);
  } else if (s.layers > 0 && s.phase != "simulating") {
    if (!s.calibrating.empty()) {
      t += fmt::format(": {} (offline, on sequences of its own), layer {} of {}", s.calibrating, s.layer, s.layers);
      if (s.passes > 0) t += fmt::format(", layer pass {} of {}", s.pass, s.passes);
    } else if (s.logits_blocks > 0) {
      t += fmt::format(": logits, vocabulary block {} of {} (after {} layers)", s.logits_block, s.logits_blocks, s.layers);
    } else {
      t += fmt::format(": layer {} of {}", s.layer, s.layers);
      if (s.steps > 1) t += fmt::format(", step {} of {}", s.step, s.steps);
    }
  } else {
    t += fmt::format(": simulated {:.3f} s, {:.1f} M events", static_cast<double>(s.now_ps) / 1e12, static_cast<double>(s.events) / 1e6);
  }
  if (s.search != nullptr && s.phase != "planning") t += fmt::format(", {} {} of {}", s.search, s.search_i, s.search_n);
  if (s.requests_total > 1) {
    t += fmt::format("; request {} of {}", s.requests_done + 1 > s.requests_total ? s.requests_total : s.requests_done + 1, s.requests_total);
    // The rate from the first finished request on: the time before it holds one-off work.
    if (s.requests_done >= 2 && s.first_request_s >= 0 && s.requests_done < s.requests_total) {
      const double per_request = (s.elapsed_s - s.first_request_s) / static_cast<double>(s.requests_done - 1);
      const double left = per_request * static_cast<double>(s.requests_total - s.requests_done);
      t += ", about " + duration_text(left) + " left";
    }
  }
  return t;
}

void progress_claims(std::size_t done, std::size_t total) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.claims_done = done;
  r->s.claims_total = total;
  maybe_print(*r, "validating");
}

void progress_engine(std::uint64_t events, std::uint64_t now_ps) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.events = events;
  r->s.now_ps = now_ps;
  maybe_print(*r, "simulating");
}

void progress_planning(std::size_t jobs) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.jobs = jobs;
  maybe_print(*r, "planning");
}

void progress_plan_search(const char* what, std::size_t i, std::size_t n) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.search = what, r->s.search_i = i, r->s.search_n = n;
  // Within the phase it runs in: a plan's, or the simulation's (an op lowered as it runs).
  maybe_print(*r, r->phase_now, true);
}

std::string fit_terminal_line(std::string text, std::size_t columns) {
  // One column kept free: a line that fills the last column wraps on some terminals.
  if (columns >= 2 && text.size() > columns - 1) text.resize(columns - 1);
  return text;
}

void progress_requests(std::size_t done, std::size_t total) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  if (done >= 1 && r->s.first_request_s < 0) {
    r->s.first_request_s = std::chrono::duration<double>(Clock::now() - r->start).count();
  }
  r->s.requests_done = done;
  r->s.requests_total = total;
}

// Functional mode draws its own bar on a terminal (run_command.cpp); logs get the lines.
static void tick_functional(Reporter& r) {
  if (!r.terminal) maybe_print(r, "computing kernels (functional mode)");
}

void progress_functional(std::uint32_t layer, std::uint32_t layers) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.layer = layer;
  r->s.layers = layers;
  r->s.step = r->s.steps = 0;
  r->s.logits_block = r->s.logits_blocks = 0;
  r->s.calibrating.clear();
  tick_functional(*r);
}

void progress_functional_calibration(const char* what, std::uint32_t layer, std::uint32_t layers, std::uint64_t pass, std::uint64_t passes) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.calibrating = what;
  r->s.layer = layer;
  r->s.layers = layers;
  r->s.pass = pass;
  r->s.passes = passes;
  r->s.step = r->s.steps = 0;
  r->s.logits_block = r->s.logits_blocks = 0;
  maybe_print(*r, "computing kernels (functional mode)");
}

void progress_functional_logits(std::size_t block, std::size_t blocks) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.logits_block = block;
  r->s.logits_blocks = blocks;
  tick_functional(*r);
}

void progress_functional_step(std::size_t step, std::size_t steps) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.step = step;
  r->s.steps = steps;
  tick_functional(*r);
}

void progress_service_run(std::uint32_t run, std::uint32_t runs) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.service_run = run;
  r->s.service_runs = runs;
}

void progress_service_call(std::size_t call, std::size_t calls) {
  Reporter* r = t_reporter;
  if (r == nullptr) return;
  r->s.call = call;
  r->s.calls = calls;
  maybe_print(*r, "serving");
}

ScopedRunProgress::ScopedRunProgress(double after_s, double every_s, std::FILE* out, bool terminal) : previous_(t_reporter) {
  const auto now = Clock::now();
  reporter_ = std::make_unique<Reporter>(Reporter{after_s, every_s, out ? out : stderr, terminal, now, now, false, "planning", {}});
  t_reporter = reporter_.get();
}

ScopedRunProgress::~ScopedRunProgress() {
  t_reporter = previous_;
  if (reporter_->printed && reporter_->terminal) std::fputc('\n', reporter_->out);
}

}  // namespace socsim
