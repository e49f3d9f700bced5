#include "sim/cli/distinct_warnings.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

namespace socsim::cli {

namespace {

// Forwards a message to the sinks it wraps unless a session is open and its text was seen in it.
// At most kMaxTexts texts are remembered (messages that differ in every run would otherwise grow
// the set with the sweep); past that every message passes.
class DistinctSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  static constexpr std::size_t kMaxTexts = 10'000;

  explicit DistinctSink(std::vector<spdlog::sink_ptr> targets) : targets_(std::move(targets)) {}

  bool open() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (active_) return false;
    active_ = true;
    seen_.clear();
    repeats_ = 0;
    return true;
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    active_ = false;
    seen_.clear();
  }
  std::size_t repeats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return repeats_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (active_) {
      std::string text(msg.payload.data(), msg.payload.size());
      if (seen_.count(text) > 0) {
        ++repeats_;
        return;
      }
      if (seen_.size() < kMaxTexts) seen_.insert(std::move(text));
    }
    for (const auto& t : targets_) {
      if (t->should_log(msg.level)) t->log(msg);
    }
  }
  void flush_() override {
    for (const auto& t : targets_) t->flush();
  }

 private:
  std::vector<spdlog::sink_ptr> targets_;
  bool active_ = false;
  std::unordered_set<std::string> seen_;
  std::size_t repeats_ = 0;
};

std::shared_ptr<DistinctSink> g_filter;  // set once by install_distinct_warnings_filter

}  // namespace

void install_distinct_warnings_filter() {
  if (g_filter) return;
  auto& sinks = spdlog::default_logger()->sinks();
  g_filter = std::make_shared<DistinctSink>(sinks);
  sinks.assign({g_filter});
}

DistinctWarnings::DistinctWarnings() : owner_(g_filter && g_filter->open()) {}

DistinctWarnings::~DistinctWarnings() {
  if (owner_) g_filter->close();
}

std::size_t DistinctWarnings::repeats() const { return owner_ ? g_filter->repeats() : 0; }

}  // namespace socsim::cli
