#pragma once
// Progress of a long simulation, for the person waiting. A run of a million requests or with a
// one-token chunk takes minutes, and a silent terminal looks like a hang. The command installs a
// reporter on its thread (ScopedRunProgress); the engine, the plans and the functional pass tick
// it as they go; after `after_s` of wall time it prints what the run is doing on stderr, then
// again every `every_s` (redrawn in place on a terminal, one line at a time in a log). A thread
// without a reporter (a sweep's workers, tests) pays one thread-local load per tick.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace socsim {

// Ticks: cheap, called every few thousand events, jobs or per functional layer.
void progress_engine(std::uint64_t events, std::uint64_t now_ps);  // the simulation runs
void progress_planning(std::size_t jobs);                           // a plan grows
// While a plan waits for a search: candidate `i` (1-based) of `n` of `what` (a static string), e.g.
// HeteroLLM's partition solver (tens of thousands of candidates for a long prompt in short
// pieces) or an NPU graph's activation layout (a width per divisor of the rows, each a GEMM plan:
// minutes for a batch of 10,000).
void progress_plan_search(const char* what, std::size_t i, std::size_t n);
void progress_requests(std::size_t done, std::size_t total);        // a workload's requests
void progress_functional(std::uint32_t layer, std::uint32_t layers);  // functional mode's kernels
// Within a functional layer: its prefill chunks and decode steps (a 5000-token decode is 5000).
void progress_functional_step(std::size_t step, std::size_t steps);
// After the layers: the logits of both runs, a block of vocabulary rows at a time.
void progress_functional_logits(std::size_t block, std::size_t blocks);
// Before them: an offline calibration's forward (llm.npu's activation scales, shadowAttn's
// grid), `what` it calibrates, layer by layer. Printed on a terminal too (the functional bar
// starts with the first computed layer; a calibration of a large model takes tens of seconds).
// `pass` of `passes` (when given): the layer forwards done of all it runs (shadowAttn's ablations
// run each layer once per ablated stream: one layer of a long sequence is minutes).
void progress_functional_calibration(const char* what, std::uint32_t layer, std::uint32_t layers, std::uint64_t pass = 0,
                                     std::uint64_t passes = 0);
// `serve`: the service run (one per context count of the max-active-contexts search) and the call.
void progress_service_run(std::uint32_t run, std::uint32_t runs);
void progress_service_call(std::size_t call, std::size_t calls);
// `validate`: claims evaluated so far of all (30,000 claims took minutes without a word).
void progress_claims(std::size_t done, std::size_t total);

class ScopedRunProgress {
 public:
  // `out` null: stderr. `terminal`: redraw in place (else one line per report).
  ScopedRunProgress(double after_s, double every_s, std::FILE* out, bool terminal);
  ~ScopedRunProgress();  // ends an in-place line
  ScopedRunProgress(const ScopedRunProgress&) = delete;
  ScopedRunProgress& operator=(const ScopedRunProgress&) = delete;

  struct Reporter;

 private:
  std::unique_ptr<Reporter> reporter_;
  Reporter* previous_;
};

// The line a report prints (without the leading "socsim: "), for tests.
struct ProgressSnapshot {
  double elapsed_s = 0;
  std::string phase;  // "simulating", "planning", "computing kernels (functional mode)", "serving"
  std::size_t requests_done = 0, requests_total = 0;
  // Wall time when the first request had finished: the rate for the time left is measured from
  // there, so one-off work before it (setup, functional mode's pass) is not multiplied.
  double first_request_s = -1;
  std::uint64_t events = 0, now_ps = 0;
  std::size_t jobs = 0;
  const char* search = nullptr;  // "planning": a search the plan waits for, and where it is
  std::size_t search_i = 0, search_n = 0;
  std::uint32_t layer = 0, layers = 0;
  std::size_t step = 0, steps = 0;  // within the layer (functional mode)
  std::size_t logits_block = 0, logits_blocks = 0;  // after the layers (functional mode)
  std::string calibrating;                          // before them: what a calibration forward calibrates
  std::uint64_t pass = 0, passes = 0;               // ... and its layer forwards (0 of 0: not counted)
  std::uint32_t service_run = 0, service_runs = 0;  // "serving" only
  std::size_t call = 0, calls = 0;
  std::size_t claims_done = 0, claims_total = 0;  // `validate`
};
std::string progress_text(const ProgressSnapshot& s);
// `text` cut to fit a terminal line of `columns` (a redraw with \r returns only to the start of
// the last wrapped row, so a longer line would leave a copy per redraw). 0: no limit.
std::string fit_terminal_line(std::string text, std::size_t columns);

}  // namespace socsim
