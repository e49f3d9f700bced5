#include "sim/systems/llms/recompute_cost.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace socsim::systems::llms {

namespace {
double cold_pairs(double t) { return RecomputeCost::pairs_of(0, t); }
}  // namespace

RecomputeCost RecomputeCost::linear(double fixed, double per_token, double per_pair) {
  RecomputeCost c;
  c.tokens_ = {1, 2};
  c.values_ = {fixed + per_token, fixed + 2 * per_token};
  c.per_pair_ = per_pair;
  c.tail_slope_ = per_token;
  return c;
}

RecomputeCost RecomputeCost::from_profile(std::vector<double> tokens, std::vector<double> values, double pair_fit_tokens) {
  if (tokens.size() != values.size() || tokens.size() < 2) throw std::invalid_argument("RecomputeCost: needs two or more profiled prefills");
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (!(tokens[i] > 0) || (i > 0 && !(tokens[i] > tokens[i - 1]))) {
      throw std::invalid_argument("RecomputeCost: profiled lengths must be positive and ascending");
    }
    if (!(values[i] >= 0)) throw std::invalid_argument("RecomputeCost: a profiled cost is negative or not a number");
  }
  RecomputeCost c;
  const std::size_t n = tokens.size();
  if (n >= 3) {  // (i2 < 2 below leaves no three: no attention term)
    // The exact quadratic a + b t + q t^2 through three long prefills: q is the second divided
    // difference; the pairs t(t+1)/2 carry t^2 / 2, so the attention per pair is 2q. The three
    // span a factor of 4: the longest, the longest at most a quarter of it and the one nearest
    // (in ratio) halfway between. Neighbours closer together (a window just past a doubling,
    // 4096 and 4100) would read any step of the profile (a unit's tile or graph granularity) as
    // attention.
    std::size_t i2 = n - 1;
    if (pair_fit_tokens > 0) {
      while (i2 > 0 && tokens[i2] > pair_fit_tokens) --i2;
    }
    std::size_t i0 = 0;
    bool spans = false;  // none a quarter of the longest or shorter: no attention term (0)
    for (std::size_t i = 0; i < i2; ++i) {
      if (4 * tokens[i] <= tokens[i2]) i0 = i, spans = true;
    }
    const double mid = std::sqrt(tokens[i0] * tokens[i2]);
    std::size_t i1 = i0 + 1 < i2 ? i0 + 1 : i0;
    for (std::size_t i = i0 + 1; i < i2; ++i) {
      if (std::abs(std::log(tokens[i] / mid)) < std::abs(std::log(tokens[i1] / mid))) i1 = i;
    }
    if (spans && i0 < i1 && i1 < i2) {
      const double x0 = tokens[i0], x1 = tokens[i1], x2 = tokens[i2];
      const double s01 = (values[i1] - values[i0]) / (x1 - x0), s12 = (values[i2] - values[i1]) / (x2 - x1);
      c.per_pair_ = std::max(0.0, 2 * (s12 - s01) / (x2 - x0));
    }
  }
  // Past the longest: the last segment's slope less its attention's share, then the attention.
  const double x1 = tokens[n - 2], x2 = tokens[n - 1];
  const double slope = (values[n - 1] - values[n - 2]) / (x2 - x1);
  c.tail_pair_ = c.per_pair_;
  c.tail_slope_ = std::max(0.0, slope - c.per_pair_ * (cold_pairs(x2) - cold_pairs(x1)) / (x2 - x1));
  c.tokens_ = std::move(tokens);
  c.values_ = std::move(values);
  return c;
}

double RecomputeCost::cold(double t) const {
  if (!(t > 0) || tokens_.empty()) return 0;
  if (t <= tokens_.front()) return values_.front();
  if (t >= tokens_.back()) {
    return values_.back() + tail_slope_ * (t - tokens_.back()) + tail_pair_ * (cold_pairs(t) - cold_pairs(tokens_.back()));
  }
  const auto hi = static_cast<std::size_t>(std::upper_bound(tokens_.begin(), tokens_.end(), t) - tokens_.begin());
  const std::size_t lo = hi - 1;
  const double f = (t - tokens_[lo]) / (tokens_[hi] - tokens_[lo]);
  return values_[lo] + f * (values_[hi] - values_[lo]);
}

double RecomputeCost::at(double tokens, double pairs) const {
  if (!(tokens > 0)) return 0;
  return cold(tokens) + per_pair_ * std::max(0.0, pairs - cold_pairs(tokens));
}

}  // namespace socsim::systems::llms
