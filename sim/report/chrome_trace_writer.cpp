#include <map>
#include <nlohmann/json.hpp>

#include "sim/report/trace.h"

namespace socsim::report {

namespace {

struct Process {
  int pid;
  const char* name;
};

// Tracks are named "<unit>.<part>": the unit is the process, so Perfetto groups a processor's
// hardware threads, DMA and queues under one expandable heading, in a fixed order.
Process process_of(const std::string& track) {
  static const std::pair<const char*, Process> kUnits[] = {
      {"npu", {1, "NPU"}}, {"gpu", {2, "GPU"}}, {"cpu", {3, "CPU"}}, {"dram", {4, "DRAM"}}, {"storage", {5, "Storage"}}};
  const std::string unit = track.substr(0, track.find('.'));
  for (const auto& [prefix, p] : kUnits) {
    if (unit == prefix) return p;
  }
  return {6, "SoC"};
}

// Trace-event times are microseconds; keep picosecond precision as a fraction.
double us(Tick t) { return static_cast<double>(t) / 1e6; }

}  // namespace

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
    events.push_back({{"name", s.name}, {"ph", "X"}, {"pid", process_of(s.track).pid}, {"tid", id_of(s.track)}, {"ts", us(s.start)},
                      {"dur", us(s.end - s.start)}});
  }
  for (const auto& c : trace.counters()) {
    events.push_back({{"name", c.track}, {"ph", "C"}, {"pid", process_of(c.track).pid}, {"ts", us(c.time)}, {"args", {{"value", c.value}}}});
  }
  // A flow's ends bind to the slices enclosing their timestamps ("bp": "e" on the finish: the
  // enclosing slice, not the next one).
  std::uint64_t flow_id = 0;
  for (const auto& f : trace.flows()) {
    ++flow_id;
    events.push_back({{"name", f.name}, {"cat", "sync"}, {"ph", "s"}, {"id", flow_id}, {"pid", process_of(f.from_track).pid},
                      {"tid", id_of(f.from_track)}, {"ts", us(f.from)}});
    events.push_back({{"name", f.name}, {"cat", "sync"}, {"ph", "f"}, {"bp", "e"}, {"id", flow_id}, {"pid", process_of(f.to_track).pid},
                      {"tid", id_of(f.to_track)}, {"ts", us(f.to)}});
  }
  ordered_json meta = ordered_json::array();
  std::map<int, const char*> processes;
  for (const auto& track : order) processes.emplace(process_of(track).pid, process_of(track).name);
  for (const auto& c : trace.counters()) processes.emplace(process_of(c.track).pid, process_of(c.track).name);
  for (const auto& [pid, name] : processes) {
    meta.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
    meta.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
  }
  for (const auto& track : order) {
    const int pid = process_of(track).pid;
    meta.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid[track]}, {"args", {{"name", track}}}});
    meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid[track]}, {"args", {{"sort_index", tid[track]}}}});
  }
  for (auto& e : events) meta.push_back(std::move(e));
  ordered_json doc;
  doc["traceEvents"] = meta;
  doc["displayTimeUnit"] = "ms";
  out << doc.dump(1) << "\n";
}

}  // namespace socsim::report
