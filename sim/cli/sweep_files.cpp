#include "sim/cli/sweep_files.h"

#include <fstream>
#include <iterator>
#include <sstream>

#include "sim/config/config_error.h"
#include "sim/config/input_file.h"
#include "sim/config/unique_key_json.h"
#include "sim/sweep/sweep_html.h"

namespace socsim::cli {

nlohmann::ordered_json read_results_json(const std::filesystem::path& file) {
  const auto bad = [&](const std::string& key, const std::string& why) { return config::ConfigError({file.string(), 0, 0}, key, why); };
  if (const auto why = config::input_file_problem(file, {"a sweep's results.json", 1ull << 30, false})) throw bad("", *why);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw bad("", "cannot open" + config::errno_reason() + " (expected a sweep output folder holding results.json)");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return config::parse_ordered_json_unique_keys(text);
  } catch (const config::DuplicateJsonKey& e) {
    throw bad(e.key(), config::duplicate_key_message(e) + " (edited? a sweep writes each key once)");
  } catch (const nlohmann::json::exception& e) {
    throw bad("", std::string("not valid JSON: ") + e.what());
  }
}

void add_sweep_results(const sweep::SweepResults& r, const std::filesystem::path& out_dir, OutputFiles& out) {
  out.add(out_dir / "results.csv", sweep::to_csv(r));
  // Replacing bytes that are not UTF-8 (a failed run's message may quote a path): never a throw.
  out.add(out_dir / "results.json", sweep::to_json(r).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  std::ostringstream html;
  sweep::write_sweep_html(r, html);
  out.add(out_dir / "report.html", std::move(html).str());
}


}  // namespace socsim::cli
