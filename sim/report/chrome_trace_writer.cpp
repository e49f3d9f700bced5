#include <map>
#include <nlohmann/json.hpp>

#include "sim/report/trace.h"

namespace socsim::report {

void write_chrome_trace(const TraceRecorder& trace, std::ostream& out) {
  using nlohmann::ordered_json;
  // Track ids in order of first appearance: deterministic and readable (units appear as used).
  std::map<std::string, int> tid;
  std::vector<std::string> order;
  auto id_of = [&](const std::string& track) {
    auto [it, inserted] = tid.emplace(track, static_cast<int>(order.size()) + 1);
    if (inserted) order.push_back(track);
    return it->second;
  };
  ordered_json events = ordered_json::array();
  for (const auto& s : trace.spans()) {
    // Trace-event times are microseconds; keep picosecond precision as a fraction.
    events.push_back({{"name", s.name}, {"ph", "X"}, {"pid", 1}, {"tid", id_of(s.track)},
                      {"ts", static_cast<double>(s.start) / 1e6}, {"dur", static_cast<double>(s.end - s.start) / 1e6}});
  }
  for (const auto& c : trace.counters()) {
    events.push_back({{"name", c.track}, {"ph", "C"}, {"pid", 1}, {"ts", static_cast<double>(c.time) / 1e6},
                      {"args", {{"value", c.value}}}});
  }
  ordered_json meta = ordered_json::array();
  meta.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "SoC"}}}});
  for (const auto& track : order) {
    meta.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid[track]}, {"args", {{"name", track}}}});
    meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 1}, {"tid", tid[track]},
                    {"args", {{"sort_index", tid[track]}}}});
  }
  for (auto& e : events) meta.push_back(std::move(e));
  ordered_json doc;
  doc["traceEvents"] = meta;
  doc["displayTimeUnit"] = "ms";
  out << doc.dump(1) << "\n";
}

}  // namespace socsim::report
