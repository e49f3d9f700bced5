// `socsim sweep merge`: joins the result folders of shards run elsewhere (Slurm array, GNU
// parallel) into one sweep's results, refusing shards of another spec, overlaps and missing runs.
#include "sim/cli/program_options.h"
#include <fmt/format.h>

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/sweep_files.h"
#include "sim/config/config_error.h"
#include "sim/sweep/out_lock.h"

namespace po = boost::program_options;

namespace socsim::cli {

namespace {
const config::SourceLocation kCommandLine{"command line", 0, 0};
}  // namespace

int sweep_merge_command(const std::vector<std::string>& args) {
  po::options_description opts("socsim sweep merge options");
  std::string out_dir;
  std::vector<std::string> shards;
  opts.add_options()("help,h", "this message")("out", po::value(&out_dir), "folder for the merged results.csv/results.json")(
      "shards", po::value(&shards)->composing(), "shard output folders");
  po::positional_options_description pos;
  pos.add("shards", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).style(kOptionStyle).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "usage: socsim sweep merge --out DIR SHARD_DIR...\n\n" << opts;
    return 0;
  }
  if (out_dir.empty()) throw config::ConfigError(kCommandLine, "--out", "is required");
  std::vector<std::pair<std::string, sweep::SweepResults>> loaded;
  for (const auto& d : shards) {
    const auto dir = std::filesystem::path(d);
    const auto file = (dir / "results.json").string();
    if (std::filesystem::is_directory(dir) && !std::filesystem::exists(file)) {
      // A shard that stopped before writing its results (killed, failed, still running).
      throw config::ConfigError(kCommandLine, "shard folder " + d,
                                std::filesystem::exists(dir / "journal.jsonl")
                                    ? "has a journal but no results.json: the shard did not finish; run its `socsim sweep` again with "
                                      "--resume and --out " + d + " (it keeps the finished runs), then merge"
                                    : "holds no results.json: the shard did not run or did not finish; run it, then merge");
    }
    loaded.emplace_back(file, sweep::results_from_json(read_results_json(file), file));
  }
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const auto& d = shards[i];
    std::error_code ec;
    for (std::size_t j = 0; j < i; ++j) {
      if (std::filesystem::equivalent(std::filesystem::path(shards[j]), std::filesystem::path(d), ec)) {
        throw config::ConfigError(kCommandLine, "shard folder " + d, "is given twice (as " + shards[j] + "): give each shard's folder once");
      }
    }
    if (std::filesystem::equivalent(std::filesystem::path(d), std::filesystem::path(out_dir), ec)) {
      throw config::ConfigError(kCommandLine, "--out", "is the shard folder " + d + ": the merged results would replace the shard's own; choose another --out");
    }
  }
  const auto merged = sweep::merge_results(loaded);
  // The merged folder is a sweep's output: the same lock as `socsim sweep --out`.
  check_no_missing_folder_stepped_out("--out", out_dir, out_dir);  // the lock makes the folder
  const sweep::OutLock lock(out_dir);
  OutputFiles out;
  add_sweep_results(merged, out_dir, out);
  out.write_all();
  std::cout << fmt::format("sweep {}: merged {} shard folders, {} runs\n", merged.name, shards.size(), merged.rows.size());
  for (const auto& f : out.paths()) std::cout << "  wrote " << f.string() << "\n";
  // As a sweep: exit 3 when runs failed (their messages are in the error column).
  if (const std::size_t failed = sweep::failed_runs(merged); failed > 0) {
    std::cerr << fmt::format("sweep {}: {} of {} merged runs failed (their messages are in the error column of results.csv)\n",
                             merged.name, failed, merged.rows.size());
    return 3;
  }
  return 0;
}


}  // namespace socsim::cli
