// A sweep keeps its finished work: a failing run is recorded and the others go on, a killed sweep
// resumes where it stopped with the same results as an uninterrupted one, one --out takes one
// sweep at a time, a journal or shard of other inputs is refused.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/cli/cli_test_util.h"
#include "sim/sweep/out_lock.h"

namespace socsim::test {
namespace {

std::filesystem::path write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

std::size_t lines_of(const std::filesystem::path& file) {
  const auto text = read_file(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Starts a sweep of `spec` into `out` (one job) and sends it `sig` once `runs` runs are in its
// journal, then `again` (if not 0) once the first is handled (needs `err`); returns the wait status, or -1 when fork fails.
// `at_signal`: the runs journaled when the first signal went. `again_in_flight`: whether the run
// in flight at the first signal was still unjournaled when `again` went (a loaded machine can
// deschedule this process long enough for it to finish, and then `again` tests nothing).
int signal_sweep_after(const std::string& spec, const std::filesystem::path& out, std::size_t runs, int sig,
                       const std::filesystem::path& err = {}, int again = 0, std::size_t* at_signal = nullptr,
                       bool* again_in_flight = nullptr) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!err.empty()) {
      const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) ::dup2(fd, STDERR_FILENO);
    }
    // As from a terminal: a test run started in the background (nohup ... &) inherits SIGINT
    // ignored, and a sweep leaves an ignored signal ignored.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::execl(SOCSIM_BINARY, SOCSIM_BINARY, "sweep", "--spec", spec.c_str(), "--jobs", "1", "--out", out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline && !(std::filesystem::exists(out / "journal.jsonl") && lines_of(out / "journal.jsonl") >= runs + 1)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (at_signal) *at_signal = lines_of(out / "journal.jsonl") - 1;
  // With a second signal to come, a run must be in flight when the first lands: the journal line
  // appears just before the next run starts, and a signal in between stops the sweep with nothing
  // left to finish (seen once in CI). kSlowerSpec's runs take about 0.8 s.
  if (again != 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::size_t lines_at_first = lines_of(out / "journal.jsonl");
  ::kill(pid, sig);
  if (again != 0) {
    // Once the first has been handled (its message is out), while the run in flight still goes.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < until && read_file(err).find("interrupted: finishing") == std::string::npos) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    // Positive evidence that a run is in flight: with none, the sweep ends at once after the first
    // signal; still alive 200 ms after its message, with the journal unchanged, it is finishing a
    // run (a run is journaled before the sweep stops waiting for it).
    const bool seen = read_file(err).find("interrupted: finishing") != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    int early = 0;
    const bool alive = ::waitpid(pid, &early, WNOHANG) == 0;
    if (alive) ::kill(pid, again);
    const bool unchanged = lines_of(out / "journal.jsonl") == lines_at_first;
    if (again_in_flight) *again_in_flight = seen && alive && unchanged;
    if (!alive) return early;  // already reaped
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// 256 MiB cannot hold qwen2-0.5b: the check runs inside the simulation, after every run of the
// sweep was prepared, so run 1 fails while run 0 and 2 finish.
const char* kFailingSpec =
    "name: failing\n"
    "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: cpu-only, prompt: 32, decode: 1}\n"
    "grid:\n"
    "  dram.capacity: [16GiB, 256MiB, 8GiB]\n"
    "metrics: [ttft_ms]\n";

TEST(CliSweepJournal, AFailingRunIsRecordedAndTheOthersFinish) {
  const auto dir = scratch_dir("sweep_failing");
  const auto spec = write(dir, "failing.yaml", kFailingSpec).string();
  const auto out = dir / "o";
  const auto r = run_socsim("sweep --spec '" + spec + "' --jobs 2 --out '" + out.string() + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("1 of 3 runs failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run 1: "), std::string::npos) << r.err;
  const auto csv = read_file(out / "results.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "run,dram.capacity,ttft_ms,error");
  EXPECT_NE(csv.find("\n1,256MiB,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("more than the device's"), std::string::npos) << csv;
  const auto j = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_EQ(j["failed_runs"], 1);
  EXPECT_TRUE(j["runs"][0]["metrics"].contains("ttft_ms"));
  EXPECT_TRUE(j["runs"][2]["metrics"].contains("ttft_ms"));
  EXPECT_NE(j["runs"][1]["error"].get<std::string>().find("more than the device's"), std::string::npos) << j.dump();
  // The journal stays, so the failed run alone can be retried ...
  ASSERT_TRUE(std::filesystem::exists(out / "journal.jsonl"));
  const auto again = run_socsim("sweep --spec '" + spec + "' --out '" + out.string() + "'");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("add --resume to continue it"), std::string::npos) << again.err;
  const auto resumed = run_socsim("sweep --spec '" + spec + "' --resume --out '" + out.string() + "'");
  EXPECT_EQ(resumed.exit_code, 3) << resumed.err;
  EXPECT_NE(resumed.out.find("2 of 3 runs already finished"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("1 simulated now"), std::string::npos) << resumed.out;
  EXPECT_EQ(read_file(out / "results.csv"), csv);
  // ... and a journal of other inputs is not resumed into: here the metrics changed.
  std::string other = kFailingSpec;
  other.replace(other.find("metrics: [ttft_ms]"), 18, "metrics: [ttft_ms, energy_j]");
  write(dir, "failing.yaml", other);
  const auto mismatch = run_socsim("sweep --spec '" + spec + "' --resume --out '" + out.string() + "'");
  EXPECT_EQ(mismatch.exit_code, 2);
  EXPECT_NE(mismatch.err.find("journal.jsonl:1: "), std::string::npos) << mismatch.err;
  EXPECT_NE(mismatch.err.find("the journal is of another sweep or other inputs"), std::string::npos) << mismatch.err;
}

// Sanitized, 64 + 16 tokens: 2.2 s a run there against 7.9 s at 256 + 64 (the 32 runs of
// AKilledSweepResumesToTheSameResults took 210 s of the sanitized suite).
#if defined(__SANITIZE_ADDRESS__)
#define SOCSIM_SLOW_SHAPE "prompt: 64, decode: 16"
#else
#define SOCSIM_SLOW_SHAPE "prompt: 256, decode: 64"
#endif
const char* kSlowSpec =
    "name: slow\n"
    "base: {soc: snapdragon-8gen3, model: qwen2-1.5b, system: cpu-only, " SOCSIM_SLOW_SHAPE "}\n"
    "grid:\n"
    "  seed: [1, 2, 3, 4, 5, 6, 7, 8]\n"
    "  cpu.idle_wakeup: [1ms, 2ms]\n"
    "metrics: [ttft_ms, decode_ms_per_token, energy_j]\n";

TEST(CliSweepJournal, AKilledSweepResumesToTheSameResults) {
  const auto dir = scratch_dir("sweep_killed");
  const auto spec = write(dir, "slow.yaml", kSlowSpec).string();
  const auto whole = run_socsim("sweep --spec '" + spec + "' --jobs 2 --out '" + (dir / "whole").string() + "'");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "whole" / "journal.jsonl"));  // complete: results.json is the record

  // The same sweep, killed (SIGKILL: no chance to clean up) once three runs are in its journal.
  const auto out = dir / "killed";
  const int status = signal_sweep_after(spec, out, 3, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep finished before it could be killed";
  EXPECT_FALSE(std::filesystem::exists(out / "results.csv"));
  const std::size_t finished = lines_of(out / "journal.jsonl") - 1;
  ASSERT_GE(finished, 3u);
  ASSERT_LT(finished, 16u);
  // A write cut short by the kill: a last line without its end.
  { std::ofstream(out / "journal.jsonl", std::ios::app) << "{\"run\": 15, \"metri"; }

  const auto resumed = run_socsim("sweep --spec '" + spec + "' --jobs 2 --resume --out '" + out.string() + "'");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find(std::to_string(finished) + " of 16 runs already finished"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find(std::to_string(16 - finished) + " simulated now"), std::string::npos) << resumed.out;
  EXPECT_EQ(read_file(out / "results.csv"), read_file(dir / "whole" / "results.csv"));
  EXPECT_EQ(read_file(out / "results.json"), read_file(dir / "whole" / "results.json"));
  EXPECT_FALSE(std::filesystem::exists(out / "journal.jsonl"));
  // Resumed once more (a requeued job): everything is in results.json, nothing is simulated again.
  const auto again = run_socsim("sweep --spec '" + spec + "' --resume --out '" + out.string() + "'");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("16 of 16 runs already finished"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("0 simulated now"), std::string::npos) << again.out;
  EXPECT_EQ(read_file(out / "results.csv"), read_file(dir / "whole" / "results.csv"));
}

TEST(CliSweepJournal, AnInterruptedSweepSaysSoAndResumes) {
  const auto dir = scratch_dir("sweep_interrupted");
  const auto spec = write(dir, "slow.yaml", kSlowSpec).string();
  const auto out = dir / "int";
  const auto err = dir / "stderr.txt";
  // Ctrl-C (SIGINT) once two runs are in the journal: the run in flight finishes, no other starts.
  std::size_t at_signal = 0;
  const int status = signal_sweep_after(spec, out, 2, SIGINT, err, 0, &at_signal);
  // It ends by the signal itself, after its own clean-up, so a calling script stops as well (bash
  // goes on after a child that merely exits 130).
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  const auto text = read_file(err);
  EXPECT_NE(text.find("interrupted: finishing the runs in flight"), std::string::npos) << text;
  EXPECT_NE(text.find("sweep slow: interrupted (SIGINT)"), std::string::npos) << text;
  EXPECT_NE(text.find("--resume"), std::string::npos) << text;
  EXPECT_FALSE(std::filesystem::exists(out / "results.csv"));
  EXPECT_FALSE(std::filesystem::exists(out / ".lock"));  // a sweep that ends removes its lock file
  const std::size_t finished = lines_of(out / "journal.jsonl") - 1;
  ASSERT_GE(finished, at_signal);
  ASSERT_GE(finished, 2u);
  ASSERT_LT(finished, 16u);
  EXPECT_NE(text.find(std::to_string(finished) + " of 16 runs finished"), std::string::npos) << text;
  EXPECT_NE(text.find("simulate the other " + std::to_string(16 - finished)), std::string::npos) << text;
  const auto resumed = run_socsim("sweep --spec '" + spec + "' --jobs 2 --resume --out '" + out.string() + "'");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find(std::to_string(finished) + " of 16 runs already finished"), std::string::npos) << resumed.out;
  EXPECT_FALSE(std::filesystem::exists(out / ".lock"));
}

// Runs of about 0.8 s each on the 2-core CI machine (65 ms for kSlowSpec's): the second signal
// must land while a run is in flight, 400 ms and more after the first, also on a quiet machine
// (at decode 1024 a run took 0.39 s once the simulator got faster, and the test failed when
// nothing else ran).
// Under the sanitizers a run of 2048 decode tokens took over 200 s, past the 120 s the test waits
// for the first one (CI at 87d4920); an eighth of it still keeps a run in flight for seconds there.
#if defined(__SANITIZE_ADDRESS__)
#define SOCSIM_SLOWER_DECODE "256"
#else
#define SOCSIM_SLOWER_DECODE "2048"
#endif
const char* kSlowerSpec =
    "name: slow\n"
    "base: {soc: snapdragon-8gen3, model: qwen2-1.5b, system: cpu-only, prompt: 256, decode: " SOCSIM_SLOWER_DECODE "}\n"
    "grid:\n"
    "  seed: [1, 2, 3, 4]\n"
    "metrics: [ttft_ms]\n";

TEST(CliSweepJournal, ASecondCtrlCStopsAtOnceARepeatedTermDoesNot) {
  const auto dir = scratch_dir("sweep_twice");
  const auto spec = write(dir, "slow.yaml", kSlowerSpec).string();
  // Sends `sig` twice and checks the outcome; tried again (up to three times) only when the machine,
  // not the sweep, decided it: the run in flight at the first signal finished before the second went.
  const auto twice = [&](const std::string& name, int sig, const auto& check) {
    constexpr int kAttempts = 3;
    bool in_flight = false;
    for (int attempt = 0; attempt < kAttempts && !in_flight; ++attempt) {
      const auto out = dir / (name + std::to_string(attempt)), err = dir / (name + std::to_string(attempt) + ".txt");
      const int status = signal_sweep_after(spec, out, 1, sig, err, sig, nullptr, &in_flight);
      if (in_flight) check(status, read_file(err), out);
    }
    EXPECT_TRUE(in_flight) << name << ": the second signal never reached a run in flight in " << kAttempts << " attempts";
  };
  // Ctrl-C twice: the default action at once, without the summary; the journal keeps what was
  // finished.
  twice("int2-", SIGINT, [](int status, const std::string& text, const std::filesystem::path& out) {
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGINT);
    EXPECT_NE(text.find("press Ctrl-C again to stop at once"), std::string::npos) << text;
    EXPECT_EQ(text.find("sweep slow: interrupted"), std::string::npos) << text;
    EXPECT_GE(lines_of(out / "journal.jsonl") - 1, 1u);
  });
  // SIGTERM twice (schedulers repeat it): the second is ignored and the stop stays clean.
  twice("term2-", SIGTERM, [](int status, const std::string& text, const std::filesystem::path& out) {
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
    EXPECT_NE(text.find("sweep slow: interrupted (SIGTERM)"), std::string::npos) << text;
    EXPECT_FALSE(std::filesystem::exists(out / ".lock"));
  });
}

TEST(CliSweepJournal, AJournalRunIndexMustBeAWholeNumber) {
  const auto dir = scratch_dir("sweep_bad_index");
  const auto spec = write(dir, "failing.yaml", kFailingSpec).string();
  const auto out = dir / "o";
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --out '" + out.string() + "'").exit_code, 3);
  { std::ofstream(out / "journal.jsonl", std::ios::app) << "{\"run\": -1, \"metrics\": [1.0]}\n"; }
  const auto r = run_socsim("sweep --spec '" + spec + "' --resume --out '" + out.string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected a run index (a whole number from 0), got -1"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("18446744073709551615"), std::string::npos) << r.err;
}

TEST(CliSweepJournal, OneSweepPerOutFolder) {
  const auto dir = scratch_dir("sweep_locked");
  const auto spec = write(dir, "failing.yaml", kFailingSpec).string();
  const auto out = dir / "o";
  std::filesystem::create_directories(out);
  // This process holds the folder's lock, as a running sweep would.
  const int fd = ::open((out / ".lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(::write(fd, "4242", 4), 4);
  const auto r = run_socsim("sweep --spec '" + spec + "' --out '" + out.string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("another sweep is writing to this folder (pid 4242)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out / "journal.jsonl"));
  ::close(fd);
  // Released (as when a sweep ends, however it ends): the folder is free again.
  EXPECT_EQ(run_socsim("sweep --spec '" + spec + "' --out '" + out.string() + "'").exit_code, 3);
}

TEST(CliSweepJournal, HostMemoryLimitFailsRunsNotTheSweep) {
  const auto dir = scratch_dir("sweep_memory");
  const auto spec = write(dir, "failing.yaml", kFailingSpec).string();
  const auto r = run_socsim("sweep --spec '" + spec + "' --jobs 2 --max-host-memory 1MiB --out '" + (dir / "o").string() + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("3 of 3 runs failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--max-host-memory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 runs simulate at once and the limit is the whole process's"), std::string::npos) << r.err;
  const auto bad = run_socsim("sweep --spec '" + spec + "' --max-host-memory lots --out '" + (dir / "p").string() + "'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--max-host-memory"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "p" / "journal.jsonl"));
}

TEST(CliSweepJournal, MergeRefusesShardsSimulatedFromOtherFileContents) {
  const auto dir = scratch_dir("sweep_fingerprint");
  std::filesystem::copy_file(std::filesystem::path(SOCSIM_SOURCE_DIR) / "soc_configs" / "snapdragon-8gen3.yaml", dir / "my-soc.yaml");
  const auto spec = write(dir, "s.yaml",
                          "base: {soc: " + (dir / "my-soc.yaml").string() +
                              ", model: qwen2-0.5b, system: cpu-only, prompt: 16, decode: 0}\n"
                              "grid:\n  seed: [1, 2]\nmetrics: [ttft_ms]\n")
                        .string();
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --shard 0/2 --out '" + (dir / "a").string() + "'").exit_code, 0);
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --shard 1/2 --out '" + (dir / "b").string() + "'").exit_code, 0);
  ASSERT_EQ(run_socsim("sweep merge --out '" + (dir / "m").string() + "' '" + (dir / "a").string() + "' '" + (dir / "b").string() + "'").exit_code, 0);
  // The SoC file changes between the shards (same path, same arguments): a different fingerprint.
  auto soc = read_file(dir / "my-soc.yaml");
  soc.replace(soc.find("capacity: 16 GiB"), 16, "capacity: 12 GiB");
  std::ofstream(dir / "my-soc.yaml") << soc;
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --shard 1/2 --out '" + (dir / "c").string() + "'").exit_code, 0);
  const auto r = run_socsim("sweep merge --out '" + (dir / "n").string() + "' '" + (dir / "a").string() + "' '" + (dir / "c").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("comes from a different sweep"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "n" / "results.csv"));
}

// A workload's included file counts by its contents, as a SoC file's includes do (only the
// including file's own bytes counted: a resume mixed rows of two workloads without a word).
TEST(CliSweepJournal, MergeRefusesShardsWhoseWorkloadIncludesDiffer) {
  const auto dir = scratch_dir("sweep_workload_include");
  write(dir, "w.yaml", "include: lengths.yaml\nrepeat: 2\n");
  write(dir, "lengths.yaml", "prompt: {uniform: [30, 40]}\ndecode: 2\n");
  const auto spec = write(dir, "s.yaml",
                          "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: cpu-only, workload: " + (dir / "w.yaml").string() +
                              "}\ngrid:\n  seed: [1, 2]\nmetrics: [ttft_ms]\n")
                        .string();
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --shard 0/2 --out '" + (dir / "a").string() + "'").exit_code, 0);
  write(dir, "lengths.yaml", "prompt: {uniform: [300, 400]}\ndecode: 2\n");
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --shard 1/2 --out '" + (dir / "b").string() + "'").exit_code, 0);
  const auto r = run_socsim("sweep merge --out '" + (dir / "m").string() + "' '" + (dir / "a").string() + "' '" + (dir / "b").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("comes from a different sweep"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "m" / "results.csv"));
}

// A refused resume names what changed (it gave two fingerprints only), and a spec changed only in
// its comments or layout resumes (its runs, name and metrics are what count).
TEST(CliSweepJournal, AResumeRefusedNamesTheInputsThatChangedAndAReformattedSpecResumes) {
  const auto dir = scratch_dir("sweep_changed_inputs");
  write(dir, "w.yaml", "include: lengths.yaml\nrepeat: 2\n");
  write(dir, "lengths.yaml", "prompt: {uniform: [30, 40]}\ndecode: 2\n");
  const std::string base = "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: cpu-only, workload: " + (dir / "w.yaml").string() + "}\n";
  // Run 1 does not fit a 1 MiB device: the sweep exits 3 and keeps its journal.
  const auto spec = write(dir, "s.yaml", "name: changed\n" + base + "grid: {dram.capacity: [16GiB, 1MiB]}\nmetrics: [ttft_ms]\n").string();
  const std::string out = (dir / "o").string();
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --out '" + out + "'").exit_code, 3);
  const auto reformatted = write(dir, "r.yaml", "# the same sweep, laid out otherwise\nname: changed\n" + base +
                                                    "grid:\n  dram.capacity: [16GiB, 1MiB]\nmetrics:\n  - ttft_ms\n").string();
  auto r = run_socsim("sweep --spec '" + reformatted + "' --out '" + out + "' --resume");
  EXPECT_EQ(r.exit_code, 3) << r.err;  // resumed: run 1 is retried and fails again
  EXPECT_EQ(r.err.find("fingerprint"), std::string::npos) << r.err;
  write(dir, "lengths.yaml", "prompt: {uniform: [300, 400]}\ndecode: 2\n");
  write(dir, "s.yaml", "name: changed\n" + base + "grid: {dram.capacity: [16GiB, 2MiB]}\nmetrics: [ttft_ms]\n");
  r = run_socsim("sweep --spec '" + spec + "' --out '" + out + "' --resume");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("journal.jsonl:1: inputs: the journal was written from other inputs: the runs' arguments changed; --workload " +
                       (dir / "w.yaml").string() + " (with its includes) changed;"),
            std::string::npos)
      << r.err;
}

// A file named by a --set value counts by its contents, as the SoC file does: shadowAttn's
// head importance changed between shards is another sweep.
TEST(CliSweepJournal, MergeRefusesShardsWhoseSettingFilesDiffer) {
  const auto dir = scratch_dir("sweep_set_file");
  const auto importance = dir / "importance.json";
  std::filesystem::copy_file(std::filesystem::path(SOCSIM_SOURCE_DIR) / "models" / "shadowattn" / "qwen2-0.5b.importance.json", importance);
  const auto spec = write(dir, "s.yaml",
                          "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: shadowattn, prompt: 64, decode: 0,\n"
                          "       set: {shadowattn.importance_file: '" + importance.string() + "'}}\n"
                          "grid:\n  seed: [1, 2]\nmetrics: [ttft_ms]\n")
                        .string();
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --shard 0/2 --out '" + (dir / "a").string() + "'").exit_code, 0);
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --shard 1/2 --out '" + (dir / "b").string() + "'").exit_code, 0);
  ASSERT_EQ(run_socsim("sweep merge --out '" + (dir / "m").string() + "' '" + (dir / "a").string() + "' '" + (dir / "b").string() + "'").exit_code, 0);
  auto text = read_file(importance);
  text.replace(text.find("\"seed\": 1"), 9, "\"seed\": 2");
  std::ofstream(importance) << text;
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --shard 1/2 --out '" + (dir / "c").string() + "'").exit_code, 0);
  const auto r = run_socsim("sweep merge --out '" + (dir / "n").string() + "' '" + (dir / "a").string() + "' '" + (dir / "c").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("comes from a different sweep"), std::string::npos) << r.err;
}

TEST(CliSweepJournal, MergeReportsFailedRunsUnfinishedShardsAndHonoursTheLock) {
  const auto dir = scratch_dir("sweep_merge_status");
  // One run fails when simulated (the model does not fit 256 MiB of DRAM), the other succeeds.
  const auto spec = write(dir, "s.yaml",
                          "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: gpu-only, prompt: 16, decode: 0}\n"
                          "grid:\n  dram.capacity: [16GiB, 256MiB]\nmetrics: [ttft_ms]\n")
                        .string();
  const auto a = run_socsim("sweep --spec '" + spec + "' --shard 0/2 --out '" + (dir / "a").string() + "'");
  const auto b = run_socsim("sweep --spec '" + spec + "' --shard 1/2 --out '" + (dir / "b").string() + "'");
  ASSERT_NE(a.exit_code, 2) << a.err;
  ASSERT_NE(b.exit_code, 2) << b.err;
  ASSERT_EQ(a.exit_code + b.exit_code, 3) << a.err << b.err;  // one shard holds the failed run
  // The merge of a sweep with a failed run exits 3, as the sweep itself does.
  const auto m = run_socsim("sweep merge --out '" + (dir / "m").string() + "' '" + (dir / "a").string() + "' '" + (dir / "b").string() + "'");
  EXPECT_EQ(m.exit_code, 3) << m.err;
  EXPECT_NE(m.err.find("1 of 2 merged runs failed"), std::string::npos) << m.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "m" / "results.csv"));
  // A shard folder that never finished (a journal, no results.json) is named with what to do.
  std::filesystem::create_directories(dir / "c");
  std::ofstream(dir / "c" / "journal.jsonl") << "";
  const auto c = run_socsim("sweep merge --out '" + (dir / "n").string() + "' '" + (dir / "a").string() + "' '" + (dir / "c").string() + "'");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("did not finish"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("--resume"), std::string::npos) << c.err;
  // A merge into a folder another sweep holds is refused like a second sweep.
  const sweep::OutLock held(dir / "locked");
  const auto l = run_socsim("sweep merge --out '" + (dir / "locked").string() + "' '" + (dir / "a").string() + "' '" + (dir / "b").string() + "'");
  EXPECT_EQ(l.exit_code, 2) << l.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "locked" / "results.csv"));
}

}  // namespace
}  // namespace socsim::test
