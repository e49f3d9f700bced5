#include "sim/cli/host_sgemm_rate.h"

#include <dlfcn.h>

#include <chrono>
#include <limits>
#include <vector>

#include "kernels/gemm/gemm_dims.h"

namespace socsim::cli {

namespace {

// CBLAS's enums as the ABI fixes them (cblas.h: CblasRowMajor = 101, CblasNoTrans = 111).
constexpr int kRowMajor = 101, kNoTrans = 111;
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using SetThreadsFn = void (*)(int);

}  // namespace

std::vector<std::string> default_blas_libraries() { return {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3", "libblas.so.3"}; }

std::optional<SgemmRate> measure_sgemm_rate(std::uint64_t m, std::uint64_t k, std::uint64_t n, double min_seconds, std::string& why,
                                            const std::vector<std::string>& libraries) {
  constexpr auto kMaxInt = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
  if (m == 0 || k == 0 || n == 0 || m > kMaxInt || k > kMaxInt || n > kMaxInt || m * k > kMaxInt || k * n > kMaxInt || m * n > kMaxInt) {
    why = "sgemm shape " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + " is empty or beyond a CBLAS int";
    return std::nullopt;
  }
  void* lib = nullptr;
  std::string found, tried;
  for (const auto& name : libraries) {
    if ((lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) {
      found = name;
      break;
    }
    tried += (tried.empty() ? "" : ", ") + name;
  }
  if (lib == nullptr) {
    why = "no BLAS library to open (tried " + tried + "; Debian: apt-get install libopenblas0)";
    return std::nullopt;
  }
  const auto sgemm = reinterpret_cast<SgemmFn>(::dlsym(lib, "cblas_sgemm"));
  if (sgemm == nullptr) {
    why = found + " has no cblas_sgemm";
    ::dlclose(lib);
    return std::nullopt;
  }
  SgemmRate r;
  r.library = found;
  if (const auto set_threads = reinterpret_cast<SetThreadsFn>(::dlsym(lib, "openblas_set_num_threads"))) {
    r.threads = static_cast<unsigned>(kernels::default_gemm_threads());
    set_threads(static_cast<int>(r.threads));
  }
  r.m = m, r.k = k, r.n = n;
  // Small integers, so every product and sum is exact: A[i][p] = i mod 3, B[p][j] = j mod 5, hence
  // C[i][j] = k (i mod 3)(j mod 5). The values do not change the rate.
  std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f);
  for (std::uint64_t i = 0; i < m; ++i) {
    for (std::uint64_t p = 0; p < k; ++p) a[i * k + p] = static_cast<float>(i % 3);
  }
  for (std::uint64_t p = 0; p < k; ++p) {
    for (std::uint64_t j = 0; j < n; ++j) b[p * n + j] = static_cast<float>(j % 5);
  }
  const int mi = static_cast<int>(m), ki = static_cast<int>(k), ni = static_cast<int>(n);
  const auto call = [&] { sgemm(kRowMajor, kNoTrans, kNoTrans, mi, ni, ki, 1.0f, a.data(), ki, b.data(), ni, 0.0f, c.data(), ni); };
  call();  // wakes the BLAS threads and faults the operands in
  // A library whose cblas_sgemm reads its arguments otherwise than the CBLAS ABI above (another
  // layout, swapped dimensions) gives other products: checked on every element, before any rate.
  for (std::uint64_t i = 0; i < m; ++i) {
    for (std::uint64_t j = 0; j < n; ++j) {
      const auto due = static_cast<float>(k * (i % 3) * (j % 5));
      if (c[i * n + j] != due) {
        why = found + ": cblas_sgemm gave C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(c[i * n + j]) +
              " where " + std::to_string(due) + " was due";
        return std::nullopt;
      }
    }
  }
  std::uint64_t calls = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double seconds = 0;
  do {
    call();
    ++calls;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (seconds < min_seconds);
  r.gflops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n) * static_cast<double>(calls) / seconds / 1e9;
  // The library stays open: its threads live until the (bench's child) process ends.
  return r;
}

}  // namespace socsim::cli
