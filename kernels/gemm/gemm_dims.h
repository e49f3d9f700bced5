#pragma once
// Shapes and checks shared by the GEMM kernels. Every GEMM here is C[m x n] = A[m x k] * W[k x n]
// (activations times weights, the orientation of gemm_plan.h), whatever layout stores A and W.
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

// Host threads a functional GEMM uses when the caller does not say: all of them.
inline unsigned default_gemm_threads() {
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : h;
}

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
