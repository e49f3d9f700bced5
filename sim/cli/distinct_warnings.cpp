#include "sim/cli/distinct_warnings.h"

#include <mutex>
#include <string>
#include <unordered_set>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

namespace socsim::cli {

// Forwards a message to the sinks it wraps the first time its text is seen. At most kMaxTexts
// texts are remembered (messages that differ in every run, e.g. naming the run, would otherwise
// grow the set with the sweep); past that every message passes.
class DistinctSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  static constexpr std::size_t kMaxTexts = 10'000;

  explicit DistinctSink(std::vector<spdlog::sink_ptr> targets) : targets_(std::move(targets)) {}
  std::size_t repeats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return repeats_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string text(msg.payload.data(), msg.payload.size());
    if (seen_.count(text) > 0) {
      ++repeats_;
      return;
    }
    if (seen_.size() < kMaxTexts) seen_.insert(std::move(text));
    for (const auto& t : targets_) {
      if (t->should_log(msg.level)) t->log(msg);
    }
  }
  void flush_() override {
    for (const auto& t : targets_) t->flush();
  }

 private:
  std::vector<spdlog::sink_ptr> targets_;
  std::unordered_set<std::string> seen_;
  std::size_t repeats_ = 0;
};

DistinctWarnings::DistinctWarnings() {
  auto& sinks = spdlog::default_logger()->sinks();
  saved_ = sinks;
  filter_ = std::make_shared<DistinctSink>(saved_);
  sinks.assign({filter_});
}

DistinctWarnings::~DistinctWarnings() {
  spdlog::default_logger()->flush();
  spdlog::default_logger()->sinks() = saved_;
}

std::size_t DistinctWarnings::repeats() const { return filter_->repeats(); }

}  // namespace socsim::cli
