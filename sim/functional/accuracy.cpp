#include "sim/functional/accuracy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace socsim::functional {

double relative_error(const kernels::Tensor& a, const kernels::Tensor& ref) {
  if (a.shape() != ref.shape()) throw std::invalid_argument("relative_error: shapes differ");
  const auto x = a.data<float>();
  const auto y = ref.data<float>();
  double d = 0, n = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = static_cast<double>(x[i]) - y[i];
    d += e * e;
    n += static_cast<double>(y[i]) * y[i];
  }
  return n == 0 ? (d == 0 ? 0 : INFINITY) : std::sqrt(d / n);
}

std::uint64_t count_non_finite(const kernels::Tensor& a) {
  const auto x = a.data<float>();
  return static_cast<std::uint64_t>(std::count_if(x.begin(), x.end(), [](float v) { return !std::isfinite(v); }));
}

LogitsComparison::LogitsComparison(std::uint64_t positions) : sys_best_(positions), ref_best_(positions) {}

void LogitsComparison::add_block(const float* sys, const float* ref, std::uint64_t cols, std::uint64_t col0) {
  const auto update = [](Best& b, float v, std::uint64_t id) {
    if (!b.set || v > b.value) b = {v, id, true};
  };
  for (std::uint64_t p = 0; p < sys_best_.size(); ++p) {
    for (std::uint64_t c = 0; c < cols; ++c) {
      const float s = sys[p * cols + c], r = ref[p * cols + c];
      sys_non_finite_ += std::isfinite(s) ? 0 : 1;
      ref_non_finite_ += std::isfinite(r) ? 0 : 1;
      const double e = static_cast<double>(s) - r;
      diff_sq_ += e * e;
      ref_sq_ += static_cast<double>(r) * r;
      max_abs_ = std::max(max_abs_, std::fabs(e));
      update(sys_best_[p], s, col0 + c);
      update(ref_best_[p], r, col0 + c);
    }
  }
}

double LogitsComparison::rel_error() const { return ref_sq_ == 0 ? (diff_sq_ == 0 ? 0 : INFINITY) : std::sqrt(diff_sq_ / ref_sq_); }

std::vector<std::uint64_t> LogitsComparison::system_top1() const {
  std::vector<std::uint64_t> ids(sys_best_.size());
  for (std::size_t p = 0; p < ids.size(); ++p) ids[p] = sys_best_[p].id;
  return ids;
}

double LogitsComparison::top1_agreement() const {
  if (sys_best_.empty()) return 1.0;
  std::uint64_t same = 0;
  for (std::size_t p = 0; p < sys_best_.size(); ++p) same += sys_best_[p].id == ref_best_[p].id;
  return static_cast<double>(same) / static_cast<double>(sys_best_.size());
}

}  // namespace socsim::functional
