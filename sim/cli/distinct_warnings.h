#pragma once
// While one is alive, each distinct log message is printed once: a sweep prepares and simulates
// thousands of runs of one spec, and a warning every run gives (a seed that draws nothing, a model
// without a calibration file) buried the progress lines (100,000 of one warning in a dry run).
// The default logger's sinks are wrapped on construction and restored on destruction; construct
// it before any thread logs.
#include <cstddef>
#include <memory>
#include <vector>

#include <spdlog/sinks/sink.h>

namespace socsim::cli {

class DistinctWarnings {
 public:
  DistinctWarnings();
  ~DistinctWarnings();
  DistinctWarnings(const DistinctWarnings&) = delete;
  DistinctWarnings& operator=(const DistinctWarnings&) = delete;

  // Messages left out because they had been printed already.
  std::size_t repeats() const;

 private:
  std::vector<spdlog::sink_ptr> saved_;
  std::shared_ptr<class DistinctSink> filter_;
};

}  // namespace socsim::cli
