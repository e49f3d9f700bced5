#pragma once
// Shapes and checks shared by the GEMM kernels. Every GEMM here is C[m x n] = A[m x k] * W[k x n]
// (activations times weights, the orientation of gemm_plan.h), whatever layout stores A and W.
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>

#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

struct GemmDims {
  std::int64_t m = 0, k = 0, n = 0;

  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n); }
  bool operator==(const GemmDims&) const = default;
};

// A thread count set for the whole process, 0 for none (ScopedGemmThreads sets it).
inline std::atomic<unsigned>& gemm_threads_override() {
  static std::atomic<unsigned> threads{0};
  return threads;
}

// Host threads a functional GEMM (and the kernels that split work like it) uses when the caller
// does not say: all of them, unless a ScopedGemmThreads is alive.
inline unsigned default_gemm_threads() {
  if (const unsigned n = gemm_threads_override().load(std::memory_order_relaxed); n > 0) return n;
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : h;
}

// Sets default_gemm_threads() for its lifetime: tests run a kernel on 1, 2 and 3 threads to show
// that the thread count changes no number (whatever cores the host has).
class ScopedGemmThreads {
 public:
  explicit ScopedGemmThreads(unsigned threads) : previous_(gemm_threads_override().exchange(threads)) {}
  ~ScopedGemmThreads() { gemm_threads_override().store(previous_); }
  ScopedGemmThreads(const ScopedGemmThreads&) = delete;
  ScopedGemmThreads& operator=(const ScopedGemmThreads&) = delete;

 private:
  unsigned previous_;
};

// A 2-D tensor of the given element type, or std::invalid_argument naming `what`.
inline void require_matrix(const Tensor& t, ElemType type, const char* what) {
  if (t.rank() != 2) throw std::invalid_argument(std::string(what) + " must be a matrix");
  if (t.type() != type) {
    throw std::invalid_argument(std::string(what) + " must be " + elem_type_name(type) + ", not " +
                                elem_type_name(t.type()));
  }
  if (t.layout() != Layout::kRowMajor) throw std::invalid_argument(std::string(what) + " must be row-major");
}

// Dimensions of A[m x k] * W[k x n] for row-major operands, checking that the inner extents agree.
inline GemmDims gemm_dims(const Tensor& a, ElemType a_type, const Tensor& w, ElemType w_type) {
  require_matrix(a, a_type, "GEMM activations");
  require_matrix(w, w_type, "GEMM weights");
  if (a.dim(1) != w.dim(0)) {
    throw std::invalid_argument("GEMM inner extents differ: A is " + std::to_string(a.dim(0)) + "x" +
                                std::to_string(a.dim(1)) + ", W is " + std::to_string(w.dim(0)) + "x" +
                                std::to_string(w.dim(1)));
  }
  return {a.dim(0), a.dim(1), w.dim(1)};
}

}  // namespace socsim::kernels
