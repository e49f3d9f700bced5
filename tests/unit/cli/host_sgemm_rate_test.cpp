// socsim bench's functional-mode bound: the host's cblas_sgemm rate (sim/cli/host_sgemm_rate.h).
#include "sim/cli/host_sgemm_rate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace socsim::cli {
namespace {

TEST(HostSgemmRate, MeasuresTheBlasTheHostHas) {
  std::string why;
  const auto r = measure_sgemm_rate(48, 40, 72, 0.01, why);
  // CI installs libopenblas-dev (scripts/install-deps.sh): there the rate must come out.
  if (!r) {
    EXPECT_FALSE(std::filesystem::exists("/usr/lib/x86_64-linux-gnu/libopenblas.so.0")) << why;
    EXPECT_NE(why.find("BLAS"), std::string::npos) << why;
    return;
  }
  EXPECT_GT(r->gflops, 0.0);
  EXPECT_FALSE(r->library.empty());
  EXPECT_GE(r->threads, 1u);
  EXPECT_EQ(r->m, 48u);
  EXPECT_EQ(r->k, 40u);
  EXPECT_EQ(r->n, 72u);
}

TEST(HostSgemmRate, SaysWhichLibrariesItTriedWhenNoneOpens) {
  std::string why;
  EXPECT_FALSE(measure_sgemm_rate(8, 8, 8, 0.01, why, {"libsocsim-no-such-blas.so.9", "libsocsim-nor-this.so"}));
  EXPECT_NE(why.find("libsocsim-no-such-blas.so.9, libsocsim-nor-this.so"), std::string::npos) << why;
  // A library that opens but has no cblas_sgemm (the C library itself).
  why.clear();
  EXPECT_FALSE(measure_sgemm_rate(8, 8, 8, 0.01, why, {"libc.so.6"}));
  EXPECT_NE(why.find("libc.so.6 has no cblas_sgemm"), std::string::npos) << why;
}

TEST(HostSgemmRate, RefusesShapesBeyondACblasInt) {
  std::string why;
  EXPECT_FALSE(measure_sgemm_rate(1u << 20, 1u << 12, 8, 0.01, why));  // m k = 2^32
  EXPECT_NE(why.find("beyond a CBLAS int"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(measure_sgemm_rate(0, 4, 4, 0.01, why));
  EXPECT_NE(why.find("empty"), std::string::npos) << why;
}

}  // namespace
}  // namespace socsim::cli
