#include "sim/sweep/parallel_runs.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace socsim::sweep {

std::size_t run_parallel(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& task,
                         const std::function<void(std::size_t)>& done, const std::function<bool()>& stop) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex done_mutex;
  std::size_t completed = 0;
  std::vector<std::exception_ptr> errors(n);
  const auto worker = [&] {
    while (!failed.load()) {
      if (stop && stop()) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        task(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed.store(true);
        return;
      }
      std::lock_guard<std::mutex> lock(done_mutex);
      ++completed;
      if (done) done(completed);
    }
  };
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, jobs), std::max<std::size_t>(n, 1)));
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return completed;
}

}  // namespace socsim::sweep
