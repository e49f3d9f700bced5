// A long run says what it is doing: nothing before the delay, then a line per interval, with the
// request count and an estimate of the time left; a thread without a reporter prints nothing.
#include "sim/core/run_progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace socsim {
namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[512];
  while (const std::size_t n = std::fread(buf, 1, sizeof buf, f)) s.append(buf, n);
  return s;
}

TEST(RunProgress, TextSaysThePhaseAndTheRequestsLeft) {
  ProgressSnapshot s;
  s.elapsed_s = 30;
  s.phase = "simulating";
  s.events = 2500000;
  s.now_ps = 1500000000000;  // 1.5 s
  EXPECT_EQ(progress_text(s), "simulating for 30 s: simulated 1.500 s, 2.5 M events");
  s.requests_done = 3;
  s.requests_total = 12;
  s.first_request_s = 20;  // 10 s for requests 2 and 3: 5 s each, 9 to go
  EXPECT_EQ(progress_text(s), "simulating for 30 s: simulated 1.500 s, 2.5 M events; request 4 of 12, about 45 s left");
  // One request done: no rate yet (the time so far holds one-off work such as setup).
  s.requests_done = 1;
  EXPECT_EQ(progress_text(s), "simulating for 30 s: simulated 1.500 s, 2.5 M events; request 2 of 12");
  ProgressSnapshot p;
  p.elapsed_s = 8000;
  p.phase = "planning";
  p.jobs = 4096;
  EXPECT_EQ(progress_text(p), "planning for 2.2 h: 4096 jobs so far");
  p.search = "HeteroLLM's partition solver, bounding candidates:", p.search_i = 12, p.search_n = 32773;  // a search the plan waits for
  EXPECT_EQ(progress_text(p), "planning for 2.2 h: 4096 jobs so far, HeteroLLM's partition solver, bounding candidates: 12 of 32773");
  ProgressSnapshot f;
  f.elapsed_s = 40;
  f.phase = "computing kernels (functional mode)";
  f.layer = 2, f.layers = 24, f.step = 1200, f.steps = 5001;
  EXPECT_EQ(progress_text(f), "computing kernels (functional mode) for 40 s: layer 2 of 24, step 1200 of 5001");
  ProgressSnapshot c = f;
  c.calibrating = "calibrating llm.npu's activation scales", c.layer = 3, c.step = c.steps = 0;
  EXPECT_EQ(progress_text(c),
            "computing kernels (functional mode) for 40 s: calibrating llm.npu's activation scales (offline, on sequences of its own), layer 3 of 24");
  f.logits_block = 3, f.logits_blocks = 149;
  EXPECT_EQ(progress_text(f), "computing kernels (functional mode) for 40 s: logits, vocabulary block 3 of 149 (after 24 layers)");
  ProgressSnapshot v;
  v.elapsed_s = 90;
  v.phase = "serving";
  v.call = 120, v.calls = 400, v.service_run = 3, v.service_runs = 16;
  // 2.3 of 16 runs in 90 s: about 8.9 min left.
  EXPECT_EQ(progress_text(v), "serving for 90 s: call 120 of 400 of service run 3 of 16 (one per context count), about 8.9 min left");
  v.service_runs = 1, v.service_run = 1;  // a replayed trace: one run, 30% in 90 s
  EXPECT_EQ(progress_text(v), "serving for 90 s: call 120 of 400, about 3.5 min left");
  // Under 1% done: an estimate from 30 s on (run 5 of 1024 after 4.7 min said nothing of 17 hours).
  v.service_runs = 1024, v.service_run = 5, v.call = 2139, v.calls = 3648;
  v.elapsed_s = 282;
  EXPECT_EQ(progress_text(v), "serving for 4.7 min: call 2139 of 3648 of service run 5 of 1024 (one per context count), about 17.4 h left");
  v.elapsed_s = 20, v.service_run = 1, v.call = 10;  // too early to say
  EXPECT_EQ(progress_text(v), "serving for 20 s: call 10 of 3648 of service run 1 of 1024 (one per context count)");
}

TEST(RunProgress, ServiceCallsPrintInALog) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const ScopedRunProgress now(0, 3600, f, false);
    progress_service_run(2, 5);
    progress_service_call(7, 50);
  }
  EXPECT_EQ(contents(f).rfind("socsim: serving for 0 s: call 7 of 50 of service run 2 of 5 (one per context count)", 0), 0u) << contents(f);
  std::fclose(f);
}

TEST(RunProgress, ClaimsPrintWithTheTimeLeft) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const ScopedRunProgress now(0, 3600, f, false);
    progress_claims(0, 30000);
  }
  EXPECT_EQ(contents(f).rfind("socsim: validating for 0 s: claim 1 of 30000", 0), 0u) << contents(f);
  std::fclose(f);
  ProgressSnapshot s;
  s.elapsed_s = 40;
  s.phase = "validating";
  s.claims_done = 4000;  // 10 ms each, 26,000 to go
  s.claims_total = 30000;
  EXPECT_EQ(progress_text(s), "validating for 40 s: claim 4001 of 30000, about 4.3 min left");
}

TEST(RunProgress, ACalibrationPrintsOnATerminalToo) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const ScopedRunProgress now(0, 3600, f, true);
    progress_functional(1, 2);  // the functional bar's job on a terminal: not printed here
    EXPECT_EQ(contents(f), "");
    progress_functional_calibration("calibrating X", 1, 2);
  }
  EXPECT_NE(contents(f).find("calibrating X (offline, on sequences of its own), layer 1 of 2"), std::string::npos) << contents(f);
  std::fclose(f);
}

TEST(RunProgress, ATerminalLineIsCutToTheWidth) {
  EXPECT_EQ(fit_terminal_line("0123456789", 8), "0123456");
  EXPECT_EQ(fit_terminal_line("0123456789", 11), "0123456789");
  EXPECT_EQ(fit_terminal_line("0123456789", 0), "0123456789");  // width unknown: whole
}

TEST(RunProgress, PrintsOnlyAfterTheDelayAndOnlyWithAReporter) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  progress_engine(1, 1);  // no reporter on this thread: nothing, nowhere
  {
    const ScopedRunProgress late(3600, 1, f, false);
    progress_engine(65536, 1000);
    progress_planning(4096);
    EXPECT_EQ(contents(f), "");  // an hour has not passed
  }
  {
    const ScopedRunProgress now(0, 3600, f, false);
    progress_requests(1, 4);
    progress_engine(65536, 2000000000000);
    progress_engine(131072, 3000000000000);  // within the interval: not printed again
  }
  {
    // The solver's ticks print as planning; a plan's next tick drops the solver's part.
    const ScopedRunProgress solver(0, 0, f, false);
    progress_plan_search("a search, step", 7, 9);
    progress_planning(5);
    // Within the simulation (an op lowered as it runs), the search reports in that phase.
    progress_engine(1000000, 5000000000000);
    progress_plan_search("another search, step", 2, 3);
    progress_engine(2000000, 6000000000000);  // the simulation's next tick ends it
  }
  const std::string text = contents(f);
  EXPECT_NE(text.find("planning for 0 s: a search, step 7 of 9\n"), std::string::npos) << text;
  EXPECT_NE(text.find("planning for 0 s: 5 jobs so far\n"), std::string::npos) << text;
  EXPECT_NE(text.find("simulating for 0 s: simulated 5.000 s, 1.0 M events, another search, step 2 of 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("simulating for 0 s: simulated 6.000 s, 2.0 M events\n"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("socsim: simulating for ", 0), 0u) << text;
  EXPECT_NE(text.find("simulated 2.000 s, 0.1 M events; request 2 of 4"), std::string::npos) << text;
  EXPECT_EQ(text.find("3.000 s"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6) << text;
  std::fclose(f);
  progress_engine(1, 1);  // the reporters are gone: nothing
}

}  // namespace
}  // namespace socsim
