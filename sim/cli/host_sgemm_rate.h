#pragma once
// The host's FP32 GEMM rate measured with its BLAS (cblas_sgemm of OpenBLAS, Debian's
// libopenblas0), for `socsim bench`'s bound on functional mode (issue #21: a functional run within
// 2x of its FLOPs at this rate). The library is opened at run time (dlopen), so the simulator
// itself neither links nor starts a BLAS thread pool; without it the bench says so.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace socsim::cli {

struct SgemmRate {
  double gflops = 0;       // 2 m k n per call over the mean call's wall time
  std::string library;     // the file dlopen found
  unsigned threads = 0;    // BLAS threads set (the host's cores, as the functional kernels use);
                           // 0: the library cannot be told (its own number)
  std::uint64_t m = 0, k = 0, n = 0;
};

// Times C = A B (m x k times k x n, row-major, FP32) after one warm-up call whose products are
// checked exactly, repeated until at least `min_seconds` have passed. Nothing, with `why` saying
// what failed, when no BLAS library can be opened, it has no cblas_sgemm, its products are wrong,
// or a dimension is beyond a CBLAS int.
// `libraries`: the files tried with dlopen, in order (the default: OpenBLAS, then any CBLAS).
std::vector<std::string> default_blas_libraries();
std::optional<SgemmRate> measure_sgemm_rate(std::uint64_t m, std::uint64_t k, std::uint64_t n, double min_seconds, std::string& why,
                                            const std::vector<std::string>& libraries = default_blas_libraries());

}  // namespace socsim::cli
