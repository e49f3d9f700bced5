// `socsim sweep`: expand a sweep spec into runs, simulate them in parallel (in-process threads;
// runs share nothing, so every result is the same whatever --jobs), write one CSV row per run.
// `socsim sweep merge` joins the result folders of shards run elsewhere (Slurm array, GNU parallel).
// Every run of the shard is prepared (all inputs checked) before the first one simulates, so a bad
// grid value fails at once, naming the spec's file:line, with nothing written.
#include "sim/cli/program_options.h"
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "sim/cli/command.h"
#include "sim/cli/distinct_warnings.h"
#include "sim/cli/host_memory_option.h"
#include "sim/cli/input_paths.h"
#include "sim/cli/output_files.h"
#include "sim/cli/progress_bar.h"
#include "sim/cli/run_setup.h"
#include "sim/cli/sweep_files.h"
#include "sim/cli/sweep_file_axes.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/cli/sweep_fingerprint.h"
#include "sim/cli/sweep_run_cost.h"
#include "sim/cli/sweep_run_reports.h"
#include "sim/cli/trace_detail_option.h"
#include "sim/config/config_error.h"
#include "sim/config/config_tree.h"
#include "sim/config/input_file.h"
#include "sim/config/longest_time.h"
#include "sim/core/host_memory.h"
#include "sim/sweep/interrupt_guard.h"
#include "sim/sweep/out_lock.h"
#include "sim/sweep/parallel_runs.h"
#include "sim/sweep/sweep_html.h"
#include "sim/sweep/sweep_journal.h"
#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_results.h"
#include "sim/validation/metric_path.h"

namespace po = boost::program_options;

namespace socsim::cli {

namespace {

const config::SourceLocation kCommandLine{"command line", 0, 0};

// Whether setting `s` names `file` (a soc, model or workload id or path, weights, a *_file).
bool names_file(const sweep::Setting& s, const std::string& file) {
  if (file.empty()) return false;
  std::filesystem::path named;
  try {
    if (s.key == "soc" || s.key == "model" || s.key == "workload") {
      named = resolve_input(s.key == "soc" ? InputKind::kSoc : s.key == "model" ? InputKind::kModel : InputKind::kWorkload, s.value);
    } else if (s.key == "weights" || s.key.ends_with("_file")) {
      named = s.value;
    } else {
      return false;
    }
  } catch (const config::ConfigError&) {
    return false;
  }
  std::error_code ec;
  return std::filesystem::equivalent(named, file, ec);
}

// A run that fails its checks is blamed on the spec line of the setting it names (a grid value,
// a case or base entry), or of the setting that names the file the error is in (a model file's
// bad key), with the run's number and settings, then the run's own message.
[[noreturn]] void blame(const sweep::SweepSpec& spec, const sweep::SweepRun& run, const config::ConfigError& e) {
  std::string key = e.key();
  if (key.rfind("--", 0) == 0) key = key.substr(2);
  const std::string label = run.label();
  const std::string context = fmt::format("run {} ({}): {}", run.index, label.empty() ? "the base settings alone" : label, e.what());
  // The setting whose key failed first; then one inside the section that failed (`llm_npu:
  // unknown key` under gpu-only, for `llm_npu.chunk`: it had no line); then the one naming the
  // file the error is in.
  enum class By { kKey, kSection, kFile };
  for (const By by : {By::kKey, By::kSection, By::kFile}) {
    for (const auto* settings : {&run.settings, &spec.base}) {
      for (const auto& s : *settings) {
        const bool match = by == By::kKey       ? s.key == key
                           : by == By::kSection ? !key.empty() && s.key.size() > key.size() && s.key.starts_with(key) && s.key[key.size()] == '.'
                                                : names_file(s, e.location().file);
        if (match) {
          throw config::ConfigError(s.location, settings == &spec.base ? "base." + s.key : s.key, context);
        }
      }
    }
  }
  // An option no setting gives (a required --prompt): where the settings every run shares begin.
  if (!spec.base.empty() && e.location().file == kCommandLine.file) throw config::ConfigError(spec.base.front().location, "base", context);
  throw config::ConfigError({spec.file, 0, 0}, "", context);
}

// The files a sweep reads: its spec, and every run's SoC (with its includes), model, workload, weights and
// importance file.
std::vector<NamedInput> sweep_inputs(const std::string& spec_arg, const std::vector<const sweep::SweepRun*>& runs) {
  std::vector<NamedInput> inputs = {{"--spec", resolve_input(InputKind::kSweep, spec_arg)}};
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto* run : runs) {
    for (std::size_t a = 0; a + 1 < run->args.size(); ++a) {
      const std::string& option = run->args[a];
      const std::string& value = run->args[a + 1];
      if (!seen.emplace(option, value).second) continue;
      if (option == "--soc") {
        const auto path = resolve_input(InputKind::kSoc, value);
        // The files it includes too: --out over one would replace a SoC file another run reads.
        try {
          const auto tree = config::ConfigTree::load_file(path);  // before `inputs` is moved from
          inputs = with_included(std::move(inputs), "sweep run's --soc", tree);
        } catch (const config::ConfigError&) {
          // a broken SoC file: the run that reads it names it
        }
        inputs.push_back({"sweep run's --soc", path});
      }
      if (option == "--model") inputs.push_back({"sweep run's --model", resolve_input(InputKind::kModel, value)});
      if (option == "--workload") inputs.push_back({"sweep run's --workload", resolve_input(InputKind::kWorkload, value)});
      if (option == "--weights") inputs.push_back({"sweep run's --weights", value});
      const std::string importance = "shadowattn.importance_file=";
      if (option == "--set" && value.rfind(importance, 0) == 0) inputs.push_back({"sweep run's shadowattn.importance_file", value.substr(importance.size())});
    }
  }
  return inputs;
}

// Before anything is simulated: the sweep's outputs can land in --out (none of their names is a
// folder), and --out holds no finished results of another sweep (its spec, inputs, shard or
// metrics differ), which writing this sweep's would destroy. Finished results of this very sweep
// are replaced (a rerun) or, with --resume, reused.
void check_out_folder(const std::filesystem::path& out_dir, const sweep::SweepResults& mine, bool resume, const std::vector<NamedInput>& inputs) {
  std::error_code ec;
  check_outputs_not_folders("--out", out_dir, {"results.json", "results.csv", "report.html"}, "the sweep's");
  // The spec or a run's SoC, model, workload or weights file, where an output goes, would be
  // replaced by it (a base `soc: out/report.html`).
  for (const char* name : {"results.json", "results.csv", "report.html", "journal.jsonl"}) check_output_not_input("--out", out_dir / name, inputs);
  const auto file = out_dir / "results.json";
  // A journal there: the sweep it belongs to owns the folder, and the journal's own check says
  // whether that is this one. --resume: the user continues in this folder on purpose (a requeued
  // shard, a study rerun after its spec was edited); results of other inputs are replaced, and
  // the resume says so ("starting afresh").
  if (resume || !std::filesystem::exists(file, ec) || std::filesystem::exists(out_dir / sweep::SweepJournal::kFileName, ec)) return;
  sweep::SweepResults done;
  try {
    done = sweep::results_header_from_json(read_results_json(file), file.string());  // whatever its rows hold
  } catch (const config::ConfigError&) {
    return;  // not a sweep's results (unreadable, another format): nothing of value to keep
  }
  if (done.fingerprint == mine.fingerprint && done.shard == mine.shard && done.metrics == mine.metrics && done.runs_total == mine.runs_total) {
    return;
  }
  // Named by the inputs that changed when both record them (a spec edited, a SoC file changed).
  std::string changed;
  if (done.name == mine.name && done.shard == mine.shard && done.metrics == mine.metrics) {
    changed = sweep::changed_inputs(sweep::inputs_json(done.inputs), sweep::inputs_json(mine.inputs));
  }
  throw config::ConfigError(kCommandLine, "--out",
                            out_dir.string() + " holds the finished results of " +
                                (changed.empty() ? "another sweep ('" + done.name + "', or other inputs, shard or metrics)"
                                                 : "sweep '" + done.name + "' run from other inputs (" + changed + ")") +
                                ": choose another --out, add --resume to replace them with this sweep's, or remove " + file.string());
}

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  if (!args.empty() && args.front() == "merge") return sweep_merge_command({args.begin() + 1, args.end()});
  po::options_description opts("socsim sweep options");
  std::string spec_arg, out_dir, shard_arg = "0/1", report_dir;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool reports = false, resume = false;
  std::string max_host_memory, trace_detail = "auto";
  opts.add_options()
      ("help,h", "this message")
      ("spec", po::value(&spec_arg), "sweep spec file or id (workloads/sweeps/<id>.yaml)")
      ("out", po::value(&out_dir), "output folder: results.csv, results.json, report.html (and runs/<n>/ with --reports)")
      ("jobs,j", po::value(&jobs), "runs simulated at once (default: the number of cores)")
      ("shard", po::value(&shard_arg), "I/N: run only part I of N (0 <= I < N), the runs balanced over the parts by estimated cost; merge with `socsim sweep merge`")
      ("reports", po::bool_switch(&reports), "also write each run's report.json, trace.json and report.html under OUT/runs/<n>/")
      ("report-dir", po::value(&report_dir), "as --reports, under DIR/<n>/ instead")
      ("trace-detail", po::value(&trace_detail), "with --reports or --report-dir: auto (default), full or summary, as `socsim run` takes it "
       "(summary: jobs only, far smaller traces)")
      ("max-host-memory", po::value(&max_host_memory),
       "a run stops (recorded as failed) when the process holds more host memory than this; the process holds every run "
       "in flight (--jobs) at once (default: half the machine's memory; 0 = no limit), e.g. 8GiB")
      ("resume", po::bool_switch(&resume), "continue the sweep whose journal is in --out: simulate only the runs it has not finished")
      ("dry-run", "list the runs (number, settings, socsim run arguments) without simulating");
  po::variables_map vm;
  parse_options(args, opts, vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "usage: socsim sweep --spec SPEC [--jobs N] [--shard I/N] [--reports | --report-dir DIR] [--trace-detail D] [--resume] --out DIR\n"
                 "       socsim sweep merge --out DIR SHARD_DIR...\n\n"
              << opts
              << "\nA spec (YAML) has `base:` (options of every run, `set:` for parameters), `grid:` (key: [values], every\n"
                 "combination runs), optional `runs:` (a list of cases crossed with the grid) and `metrics:` (report paths).\n"
                 "Keys soc, model, system, workload, prompt, decode, batch, mode, seed are run options; others are --set keys.\n";
    return 0;
  }
  if (spec_arg.empty()) throw config::ConfigError(kCommandLine, "--spec", "is required (a file or an id in workloads/sweeps/)");
  if (out_dir.empty() && !vm.count("dry-run")) throw config::ConfigError(kCommandLine, "--out", "is required");
  if (jobs < 1) throw config::ConfigError(kCommandLine, "--jobs", "must be >= 1");
  // Options that would be ignored: said, not dropped.
  if (reports && vm.count("report-dir")) {
    throw config::ConfigError(kCommandLine, "--reports", "and --report-dir exclude each other (--report-dir DIR writes the reports under DIR instead of OUT/runs/)");
  }
  if (vm.count("report-dir") && report_dir.empty()) throw config::ConfigError(kCommandLine, "--report-dir", "is empty: give a folder");
  if (vm.count("trace-detail") && !reports && !vm.count("report-dir")) {
    throw config::ConfigError(kCommandLine, "--trace-detail", "applies only with --reports or --report-dir (no trace is written without them)");
  }
  const report::TraceDetail detail = trace_detail_option(trace_detail);
  if (vm.count("dry-run")) {
    // (--jobs and --max-host-memory may stay on a command line that --dry-run checks first.)
    const std::pair<const char*, bool> writes[] = {{"--resume", resume}, {"--reports", reports}, {"--report-dir", vm.count("report-dir") > 0}};
    for (const auto& [o, given] : writes) {
      if (given) throw config::ConfigError(kCommandLine, o, "does not apply with --dry-run (it lists the runs and writes nothing)");
    }
  }
  const std::uint64_t memory_limit = host_memory_limit(max_host_memory);
  if (!report_dir.empty()) {
    reports = true;
    std::error_code ec;
    if (std::filesystem::exists(report_dir, ec) && !std::filesystem::is_directory(report_dir, ec)) {
      // Checked before anything is simulated: every run's reports would fail to be written.
      throw config::ConfigError(kCommandLine, "--report-dir", report_dir + " is a file, not a folder");
    }
  }
  SweepRunReports run_reports(report_dir.empty() ? std::filesystem::path(out_dir) / "runs" : std::filesystem::path(report_dir),
                              report_dir.empty() ? "--reports" : "--report-dir", detail == report::TraceDetail::kSummary);
  const auto shard = sweep::parse_shard(shard_arg);
  const auto spec = sweep::load_sweep_spec(resolve_input(InputKind::kSweep, spec_arg));
  check_file_axes(spec);
  const auto plan = sweep::expand_sweep(spec, memory_limit);
  const auto runs = sweep::shard_runs(plan, shard, shard.count > 1 ? sweep_run_costs(plan) : std::vector<double>(plan.runs.size(), 1.0));

  // A warning every run gives is printed once (the summary counts the repeats).
  const DistinctWarnings distinct_warnings;
  {
    // Every run's options are checked before any is simulated (about 2 ms each: a million-run
    // grid takes most of an hour here, so it says how far it has got).
    ProgressBar checked("runs' options checked", runs.size(), NotATerminal::kLogLines);
    bool seed_drawn = false;  // by some run
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto* run = runs[i];
      try {
        const auto setup = prepare_run(run->args);
        if (is_help(*setup)) throw config::ConfigError(kCommandLine, "help", "is not a sweep setting");
        seed_drawn = seed_drawn || !seed_without_effect(*setup);
      } catch (const config::ConfigError& e) {
        blame(spec, *run, e);
      } catch (const po::error_with_option_name& e) {
        // A value the option's type refuses (prompt: 8.5): blamed on the spec's line as the rest.
        blame(spec, *run, config::ConfigError(kCommandLine, e.get_option_name(), e.what()));
      }
      checked.update(i + 1);
    }
    // Seeds varied where no run draws with them repeat the same simulations: said once (a test
    // or a study may want identical runs; the runs' own warnings are printed once too).
    if (!seed_drawn && !runs.empty()) {
      for (const auto& st : runs.front()->settings) {
        if (st.key == "seed") {
          spdlog::warn("{}", config::format_config_error(st.location, "seed",
                                                          "varies, but no run of this sweep draws with its seed (it seeds functional mode's "
                                                          "synthetic weights and tokens and a --workload's draws; a timing run of one request "
                                                          "draws nothing): its values repeat the same simulations"));
        }
      }
    }
  }
  if (vm.count("dry-run")) {
    for (const auto* run : runs) {
      std::cout << run->index << "  " << run->label() << "\n    socsim run";
      for (const auto& a : run->args) std::cout << " " << (a.find(' ') == std::string::npos ? a : "'" + a + "'");
      std::cout << "\n";
    }
    return 0;
  }

  // From here on the folder is this sweep's: locked against a second sweep, and every finished
  // run is in the journal before it counts, so an interrupt, a crash or a failing run loses
  // nothing (--resume continues).
  check_no_missing_folder_stepped_out("--out", out_dir, out_dir);  // the lock makes the folder
  if (!report_dir.empty()) check_no_missing_folder_stepped_out("--report-dir", report_dir, report_dir);  // before --out is made
  const sweep::OutLock lock(out_dir);
  sweep::SweepResults results;
  results.name = spec.name;
  results.spec = spec.file;
  const auto inputs = sweep_inputs_of(spec, plan);
  results.fingerprint = inputs.fingerprint;
  results.inputs = inputs.parts;
  results.runs_total = plan.runs.size();
  results.shard = fmt::format("{}/{}", shard.index, shard.count);
  results.columns = plan.columns;
  results.metrics = spec.metrics;
  results.rows.resize(runs.size());
  const std::vector<NamedInput> input_files = sweep_inputs(spec_arg, runs);
  check_out_folder(out_dir, results, resume, input_files);
  if (reports) run_reports.check_not_inputs(runs, input_files);  // each run's reports too, as `run` checks its --report-dir
  // Where reports go, spelled so that another spelling of the same folder resumes: --out's own
  // runs/ (wherever --out is), or --report-dir's absolute path.
  std::string reports_where;
  if (reports) {
    std::error_code canon_ec;
    const auto dir = std::filesystem::weakly_canonical(report_dir, canon_ec);
    reports_where = report_dir.empty() ? "--out's runs/" : (canon_ec ? std::filesystem::absolute(report_dir) : dir).string();
  }
  sweep::SweepJournal journal(out_dir, {spec.name, results.fingerprint, results.shard, spec.metrics, reports_where, inputs.parts}, resume, plan.runs.size());
  std::map<std::size_t, const sweep::JournalEntry*> journaled;
  for (const auto& e : journal.finished()) journaled[e.run] = &e;
  // A sweep that completed removed its journal; resuming it again (a requeued job) takes its
  // finished runs from results.json when that is this very sweep's, instead of redoing them.
  std::vector<sweep::JournalEntry> from_results;
  const auto results_file = std::filesystem::path(out_dir) / "results.json";
  if (resume && !journal.resumed() && std::filesystem::exists(results_file)) {
    try {
      const auto done = sweep::results_from_json(read_results_json(results_file), results_file.string());
      if (done.fingerprint == results.fingerprint && done.shard == results.shard && done.metrics == results.metrics &&
          done.runs_total == results.runs_total) {
        for (const auto& row : done.rows) {
          if (row.error.empty() && row.run < plan.runs.size()) from_results.push_back({row.run, row.metrics, {}});
        }
      } else {
        std::cout << fmt::format("sweep {}: {} is of another sweep or other inputs; starting afresh\n", spec.name, results_file.string());
      }
    } catch (const config::ConfigError& e) {
      std::cout << fmt::format("sweep {}: {} cannot be read ({}); starting afresh\n", spec.name, results_file.string(), e.what());
    }
    for (const auto& e : from_results) {
      journal.append(e);  // so an interrupt now does not lose them either
      journaled[e.run] = &e;
    }
    journal.sync();  // before any run: a crash must not leave a journal holding none of them
  }

  std::vector<std::size_t> todo;  // positions in `runs` still to simulate
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const auto& run = *runs[k];
    auto& row = results.rows[k];
    row.run = run.index;
    for (const auto& c : plan.columns) {
      std::string v;
      for (const auto& st : run.settings) {
        if (st.key == c) v = st.value;
      }
      row.values.push_back(v);
    }
    // A journaled run that finished is taken as it is; one that failed is tried again.
    const auto it = journaled.find(run.index);
    if (it != journaled.end() && it->second->error.empty()) {
      row.metrics = it->second->metrics;
    } else {
      todo.push_back(k);
    }
  }
  if (journal.resumed() || !from_results.empty()) {
    std::cout << fmt::format("sweep {}: resuming from {}: {} of {} runs already finished\n", spec.name,
                             journal.resumed() ? journal.path().string() : results_file.string(), runs.size() - todo.size(), runs.size());
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t ran = 0;
  std::atomic<std::size_t> failed_now{0};
  int sig = 0;
  {
    // Ctrl-C while runs are simulated: stop starting runs, keep the finished ones. Only here: once
    // every run has finished, a signal during the writing of the results takes its default action
    // (the results are written whole or not at all, and the journal is removed only after).
    const sweep::InterruptGuard interrupt;
    ProgressBar bar("runs", todo.size(), NotATerminal::kLogLines);
    ran = sweep::run_parallel(
        todo.size(), jobs,
        [&](std::size_t t) {
          const std::size_t k = todo[t];
          const auto& run = *runs[k];
          auto& row = results.rows[k];
          sweep::JournalEntry entry{run.index, {}, {}};
          try {
            auto setup = prepare_run(run.args);
            set_trace_detail(*setup, reports ? detail : report::TraceDetail::kOff);
            set_host_memory_limit(*setup, memory_limit);
            const RunResult result = simulate_prepared(*setup);
            const auto json = report::to_json(result.report);
            for (const auto& m : spec.metrics) {
              try {
                entry.metrics.push_back(validation::lookup_metric(json, m));
              } catch (const validation::MetricError&) {
                entry.metrics.push_back(std::nullopt);  // e.g. decode metrics of a prefill-only run
              }
            }
            // Written as each run finishes, so a long sweep's reports can be opened while it runs.
            if (reports) run_reports.write(result, run.index);
          } catch (const config::ConfigError& e) {
            // One failing run (a grid point the device cannot hold, out of host memory, an
            // unwritable report) is recorded with its message; the others go on.
            entry.metrics.assign(spec.metrics.size(), std::nullopt);
            entry.error = e.what();
            if (e.key() == "--max-host-memory" && jobs > 1 &&
                (entry.error.find("the simulation holds") != std::string::npos || entry.error.find("the simulation would hold") != std::string::npos)) {
              // The memory is the process's: other runs in flight count too (also in the check
              // before an allocation: a kernel's steps, a large tensor).
              entry.error += fmt::format(" [in this sweep {} runs simulate at once and the limit is the whole process's: "
                                         "`--resume --jobs 1`, or a higher `socsim sweep --max-host-memory`, retries it]",
                                         jobs);
            }
          } catch (const hw::HardwareLimitError& e) {
            // A grid point the described hardware cannot hold (a TCM too small for a kernel's
            // tiles): bad input of this run, named with its key (it was an "internal error").
            entry.metrics.assign(spec.metrics.size(), std::nullopt);
            entry.error = e.describe("--set " + e.key() + "=...");
          } catch (const TimeOverflow& e) {
            // A grid point far outside what a phone does (a duration past 64-bit picoseconds).
            entry.metrics.assign(spec.metrics.size(), std::nullopt);
            entry.error = std::string("the inputs ask for a duration socsim cannot represent: ") + e.what() + config::longest_time_hint();
          } catch (const std::exception& e) {
            // A run that cannot finish (watchdog), an internal error: recorded, the others go on.
            entry.metrics.assign(spec.metrics.size(), std::nullopt);
            entry.error = std::string("internal error: ") + e.what();
          }
          row.metrics = entry.metrics;
          row.error = entry.error;
          if (!entry.error.empty()) ++failed_now;
          journal.append(entry);
        },
        [&](std::size_t done) { bar.update(done); }, [&] { return sweep::InterruptGuard::received() != 0 || run_reports.disk_full(); });
    sig = sweep::InterruptGuard::received();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (sig == 0 && run_reports.disk_full() && ran < todo.size()) {
    // As an interrupt: no results.json (it stands for a whole sweep); the journal holds the runs.
    journal.close();
    std::cerr << fmt::format("sweep {}: stopped after {:.1f} s, {} of {} runs simulated now ({} failed): the disk is too full for "
                             "more reports. The runs that finished are in {}; the same command with --resume simulates the others\n",
                             spec.name, wall, ran, todo.size(), failed_now.load(), journal.path().string());
    for (const auto& row : results.rows) {
      if (!row.error.empty()) std::cerr << fmt::format("  run {}: {}\n", row.run, row.error);
    }
    return 3;
  }
  if (sig != 0 && ran < todo.size()) {
    // No results.json: it stands for a whole sweep. The journal is the record --resume reads.
    journal.close();
    // Failed runs are journaled too, but --resume tries them again: they are not finished.
    const std::size_t ok_now = ran - failed_now.load();
    const std::size_t finished = runs.size() - todo.size() + ok_now;
    const std::string failures = failed_now.load() == 0 ? std::string()
                                                        : fmt::format(", {} failed (--resume tries them again)", failed_now.load());
    std::cerr << fmt::format("sweep {}: interrupted ({}) after {:.1f} s: {} of {} runs finished ({} now{}); they are in {}. "
                             "Run the same command with --resume to simulate the other {}\n",
                             spec.name, sig == SIGINT ? "SIGINT" : "SIGTERM", wall, finished, runs.size(), ok_now, failures,
                             journal.path().string(), runs.size() - finished);
    return 128 + sig;  // main() then ends the process by the signal itself
  }
  OutputFiles out;
  add_sweep_results(results, out_dir, out);
  out.write_all();
  const std::size_t failed = sweep::failed_runs(results);
  if (failed == 0) {
    journal.remove();  // results.json is the record now
  } else {
    journal.close();  // the record --resume reads: a line that did not reach the disk is exit 2
  }
  std::cout << fmt::format("sweep {}: {} of {} runs (shard {}), {} simulated now, {} jobs, {:.1f} s\n", spec.name, runs.size(),
                           plan.runs.size(), results.shard, todo.size(), jobs, wall);
  sweep::print_table(results, std::cout);
  for (const auto& f : out.paths()) std::cout << "  wrote " << f.string() << "\n";
  if (const std::size_t repeats = distinct_warnings.repeats(); repeats > 0) {
    std::cerr << fmt::format("({} repeats of the warnings above, given by other runs of the sweep, are not shown)\n", repeats);
  }
  if (reports) std::cout << "  wrote " << run_reports.root().string() << "/<run>/{report.html,trace.json,report.json} (" << run_reports.written() << ")\n";
  // A metric no run reported: checked against the report's keys before running, so this is a
  // key that exists for other systems or lengths only (e.g. decode metrics of prefill-only runs).
  for (std::size_t m = 0; m < spec.metrics.size(); ++m) {
    bool any = false;
    for (const auto& row : results.rows) any = any || row.metrics[m].has_value();
    if (!any && !results.rows.empty() && failed < results.rows.size()) {
      std::cerr << fmt::format("warning: no run of this sweep reported '{}' (its column is empty)\n", spec.metrics[m]);
    }
  }
  if (failed > 0) {
    std::cerr << fmt::format("sweep {}: {} of {} runs failed (their messages are in the error column of results.csv); "
                             "the finished ones are kept: `--resume` retries only the failed runs\n",
                             spec.name, failed, runs.size());
    for (const auto& row : results.rows) {
      if (!row.error.empty()) std::cerr << fmt::format("  run {}: {}\n", row.run, row.error);
    }
    return 3;
  }
  return 0;
}

}  // namespace socsim::cli
