#pragma once
// Runs n independent tasks on `jobs` threads. Each task writes only its own result slot, so the
// results (and which error is reported) do not depend on the number of threads or on timing.
#include <cstddef>
#include <functional>

namespace socsim::sweep {

// task(i) for i in [0, n); done(k) is called (serialized) after each completion with the count
// so far, for a progress display. If tasks throw, the exception of the lowest index is rethrown
// after every thread has stopped; tasks not yet started are skipped. When stop() returns true
// (an interrupt), no further task starts; the ones running finish. Returns how many tasks ran.
std::size_t run_parallel(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& task,
                         const std::function<void(std::size_t)>& done = {}, const std::function<bool()>& stop = {});

}  // namespace socsim::sweep
