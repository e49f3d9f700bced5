#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/report/json_text.h"
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
  // Streamed one event per line: a trace holds millions of events, and a JSON tree of them would
  // take ten times the memory of the text. Names are escaped by the JSON library, numbers written
  // shortest round-trip, so the text is the same for the same trace.
  // Track ids in order of first appearance: deterministic and readable (units appear as used).
  std::map<std::string, int> tid;
  std::vector<std::string> order;
  auto id_of = [&](const std::string& track) {
    auto [it, inserted] = tid.emplace(track, static_cast<int>(order.size()) + 1);
    if (inserted) order.push_back(track);
    return it->second;
  };
  for (const auto& s : trace.spans()) id_of(s.track);
  for (const auto& f : trace.flows()) {
    id_of(f.from_track);
    id_of(f.to_track);
  }
  std::map<std::string, std::string> escaped_tracks;
  auto track_json = [&](const std::string& track) -> const std::string& {
    auto it = escaped_tracks.find(track);
    if (it == escaped_tracks.end()) it = escaped_tracks.emplace(track, json_text(nlohmann::json(track))).first;
    return it->second;
  };
  const auto quoted = [](const std::string& text) { return json_text(nlohmann::json(text)); };
  bool first = true;
  auto line = [&](const std::string& event) {
    out << (first ? "\n" : ",\n") << event;
    first = false;
  };

  out << "{\"traceEvents\":[";
  std::map<int, const char*> processes;
  for (const auto& track : order) processes.emplace(process_of(track).pid, process_of(track).name);
  for (const auto& c : trace.counters()) processes.emplace(process_of(c.track).pid, process_of(c.track).name);
  for (const auto& [pid, name] : processes) {
    line(fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})", pid, quoted(name)));
    line(fmt::format(R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})", pid, pid));
  }
  for (const auto& track : order) {
    const int pid = process_of(track).pid;
    line(fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":{}}}}})", pid, tid[track], track_json(track)));
    line(fmt::format(R"({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}})", pid, tid[track], tid[track]));
  }
  for (const auto& s : trace.spans()) {
    line(fmt::format(R"({{"name":{},"ph":"X","pid":{},"tid":{},"ts":{},"dur":{}}})", quoted(s.name), process_of(s.track).pid, tid[s.track],
                     us(s.start), us(s.end - s.start)));
  }
  for (const auto& c : trace.counters()) {
    // JSON has no NaN or infinity (the tree writer this replaced wrote null).
    const std::string value = std::isfinite(c.value) ? fmt::format("{}", c.value) : "null";
    line(fmt::format(R"({{"name":{},"ph":"C","pid":{},"ts":{},"args":{{"value":{}}}}})", track_json(c.track), process_of(c.track).pid,
                     us(c.time), value));
  }
  // A flow's ends bind to the slices enclosing their timestamps ("bp": "e" on the finish: the
  // enclosing slice, not the next one).
  std::uint64_t flow_id = 0;
  for (const auto& f : trace.flows()) {
    ++flow_id;
    line(fmt::format(R"({{"name":{},"cat":"sync","ph":"s","id":{},"pid":{},"tid":{},"ts":{}}})", quoted(f.name), flow_id,
                     process_of(f.from_track).pid, tid[f.from_track], us(f.from)));
    line(fmt::format(R"({{"name":{},"cat":"sync","ph":"f","bp":"e","id":{},"pid":{},"tid":{},"ts":{}}})", quoted(f.name), flow_id,
                     process_of(f.to_track).pid, tid[f.to_track], us(f.to)));
  }
  out << "\n],\n\"displayTimeUnit\":\"ms\"}\n";
}

}  // namespace socsim::report
