#include "kernels/gemm/packed_gemm.h"

#include <cstdint>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include <spdlog/spdlog.h>

namespace socsim::kernels {

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn) {
  if (count == 0) return;
  if (count == 1) return fn(0);
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto guarded = [&](std::size_t i) {
    try {
      fn(i);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::jthread> workers;
  workers.reserve(count - 1);
  // A host out of threads (a container's or Slurm job's pids limit) refuses one: the indices left
  // run on this thread after index 0, which computes the same numbers (every index writes only its
  // own outputs), more slowly; said once per process.
  std::size_t started = 1;
  for (; started < count; ++started) {
    try {
      if (detail::refuse_threads_for_tests().load(std::memory_order_relaxed)) {
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "refused by a test");
      }
      workers.emplace_back(guarded, started);
    } catch (const std::system_error& e) {
      static std::once_flag said;
      std::call_once(said, [&] {
        spdlog::warn("could not start a host thread ({}): the kernels' work runs on fewer threads (same results, slower)", e.what());
      });
      break;
    }
  }
  guarded(0);
  for (std::size_t i = started; i < count; ++i) guarded(i);
  workers.clear();  // joins
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace socsim::kernels

namespace socsim::kernels::packed_gemm_detail {

namespace {

// Splits [0, extent) into `parts` ranges whose inner edges are multiples of `quantum`.
std::vector<std::pair<std::int64_t, std::int64_t>> split_range(std::int64_t extent, std::int64_t quantum,
                                                              std::int64_t parts) {
  const std::int64_t units = (extent + quantum - 1) / quantum;
  parts = std::max<std::int64_t>(1, std::min(parts, units));
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t p = 0; p < parts; ++p) {
    const std::int64_t b = units * p / parts * quantum, e = std::min(extent, units * (p + 1) / parts * quantum);
    if (b < e) out.emplace_back(b, e);
  }
  return out;
}

}  // namespace

std::vector<Rect> split_output(const GemmDims& d, unsigned threads) {
  const std::int64_t t = std::max(1u, threads);
  std::vector<Rect> rects;
  if (d.n >= d.m) {
    for (auto [b, e] : split_range(d.n, kGemmNr, t)) rects.push_back({0, d.m, b, e});
  } else {
    for (auto [b, e] : split_range(d.m, kGemmMr, t)) rects.push_back({b, e, 0, d.n});
  }
  return rects;
}

PanelBuffer::PanelBuffer(std::size_t n) : raw_(n + 16) {
  const auto addr = reinterpret_cast<std::uintptr_t>(raw_.data());
  data_ = raw_.data() + ((64 - addr % 64) % 64) / sizeof(float);
}

}  // namespace socsim::kernels::packed_gemm_detail
