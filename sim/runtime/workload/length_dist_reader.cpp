// Reading fixed lengths and the three distribution forms, with file:line on every mistake.
#include "sim/runtime/workload/length_dist_reader.h"

#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace socsim::runtime {

namespace {

using config::ConfigError;
using config::Section;

constexpr std::array<std::string_view, 3> kForms{"uniform", "normal", "choices"};
// Wider than any real std; the bound only keeps absurd values (1e300) out of the arithmetic.
constexpr double kMaxStd = 1e9;
// A truncated normal must keep at least this share of its draws inside [min, max] (below it, a
// length is redrawn over 100 times on average and may end clamped; see read_normal).
constexpr double kMinNormalInside = 0.01;

std::string key_path(const Section& s, std::string_view key) {
  return s.path().empty() ? std::string(key) : s.path() + "." + std::string(key);
}

std::string text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string range_text(LengthLimits limits) {
  return "[" + std::to_string(limits.min) + ", " + std::to_string(limits.max) + "]";
}

// number_list yields doubles; a token count must be a whole number within the key's limits.
std::vector<std::uint64_t> read_token_list(const Section& dist, std::string_view key,
                                           LengthLimits limits) {
  const std::vector<double> values = dist.number_list(key);
  std::vector<std::uint64_t> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (v != std::floor(v) || v < static_cast<double>(limits.min) ||
        v > static_cast<double>(limits.max)) {
      throw ConfigError(dist.location_of(key), key_path(dist, key) + "[" + std::to_string(i) + "]",
                        "expected a whole number of tokens in " + range_text(limits) + ", got " +
                            text(v));
    }
    out.push_back(static_cast<std::uint64_t>(v));
  }
  return out;
}

UniformLength read_uniform(const Section& dist, LengthLimits limits) {
  const auto bounds = read_token_list(dist, "uniform", limits);
  if (bounds.size() != 2) {
    throw ConfigError(dist.location_of("uniform"), key_path(dist, "uniform"),
                      "expected [min, max], got " + std::to_string(bounds.size()) + " values");
  }
  if (bounds[0] > bounds[1]) {
    throw ConfigError(dist.location_of("uniform"), key_path(dist, "uniform"),
                      "min must be <= max, got [" + std::to_string(bounds[0]) + ", " +
                          std::to_string(bounds[1]) + "]");
  }
  return {bounds[0], bounds[1]};
}

NormalLength read_normal(const Section& dist, LengthLimits limits) {
  // A truncated normal is a map of four numbers; say so when it is written otherwise (a list
  // [mean, std] was answered with only "expected a map").
  const Section n = dist.child("normal");  // (a list too: child() takes lists of maps)
  try {
    (void)n.has("mean");  // a list or scalar: "expected a map, got ..."
  } catch (const ConfigError& e) {
    throw ConfigError(e.location(), e.key(), e.message() + "; a truncated normal is {mean, std, min, max}");
  }
  const auto lo = static_cast<std::int64_t>(limits.min), hi = static_cast<std::int64_t>(limits.max);
  NormalLength out;
  out.mean = n.number("mean");
  out.std_dev = n.number("std", 0, kMaxStd);
  out.min = static_cast<std::uint64_t>(n.integer("min", lo, hi));
  out.max = static_cast<std::uint64_t>(n.integer("max", lo, hi));
  if (out.std_dev <= 0) throw ConfigError(n.location_of("std"), key_path(n, "std"), "must be > 0");
  if (out.min > out.max) {
    throw ConfigError(n.location_of("min"), key_path(n, "min"),
                      "must be <= max (" + std::to_string(out.max) + "), got " +
                          std::to_string(out.min));
  }
  // Also what keeps truncation by redrawing cheap (length_draw.cpp).
  if (out.mean < static_cast<double>(out.min) || out.mean > static_cast<double>(out.max)) {
    throw ConfigError(n.location_of("mean"), key_path(n, "mean"),
                      "must lie within [min, max] = [" + std::to_string(out.min) + ", " +
                          std::to_string(out.max) + "], got " + text(out.mean));
  }
  // Truncation redraws until a length lands inside (length_draw.cpp): with a std far wider than
  // the range nearly every draw is redrawn, and after 1000 the last is clamped to an end, piling
  // lengths on min and max. Such a normal is flat over the range: say so rather than sample it.
  const double spread = out.std_dev * std::sqrt(2.0);
  const double inside = 0.5 * (std::erfc((static_cast<double>(out.min) - 0.5 - out.mean) / spread) -
                               std::erfc((static_cast<double>(out.max) + 0.5 - out.mean) / spread));
  if (inside < kMinNormalInside) {
    // The share to three digits, never rounded up to the floor it is under (0.9999996 is not "1%").
    std::string share = fmt::format("{:.3g}", 100 * inside);
    if (std::stod(share) >= 100 * kMinNormalInside) share = "0.999";
    const std::string instead =
        out.min == out.max ? "one length is written as itself (`" + std::to_string(out.min) + "`)"
                           : "a normal this wide is flat over the range: write `uniform: [" + std::to_string(out.min) + ", " +
                                 std::to_string(out.max) + "]`, or give a std nearer the range's width";
    throw ConfigError(n.location_of("std"), key_path(n, "std"),
                      text(out.std_dev) + " leaves only " + share + "% of the draws inside [min, max] = [" + std::to_string(out.min) +
                          ", " + std::to_string(out.max) + "], under the 1% a truncated normal needs (the others are redrawn, up to 1000 " +
                          "times, then clamped to an end); " + instead);
  }
  return out;
}

ChoiceLength read_choices(const Section& dist, LengthLimits limits) {
  ChoiceLength out{read_token_list(dist, "choices", limits)};
  if (out.values.empty()) {
    throw ConfigError(dist.location_of("choices"), key_path(dist, "choices"),
                      "expected at least one length");
  }
  return out;
}

// Section has no "is this a map?" query; child() succeeds exactly when the value is a map (or a
// list, which the form lookup then rejects with "expected a map, got a list").
std::optional<Section> distribution_section(const Section& parent, std::string_view key) {
  try {
    return parent.child(key);
  } catch (const ConfigError&) {
    return std::nullopt;  // a scalar or missing: integer() below gives the precise error
  }
}

}  // namespace

std::optional<LengthDist> read_length_dist(const Section& parent, std::string_view key,
                                           LengthLimits limits) {
  // Built in place and returned by name: moving a LengthDist temporary into the optional trips
  // GCC 12's -Wmaybe-uninitialized on the inactive vector alternative (a false positive).
  std::optional<LengthDist> out(std::in_place);
  const auto dist = distribution_section(parent, key);
  if (!dist) {
    const auto v = parent.integer(key, static_cast<std::int64_t>(limits.min),
                                  static_cast<std::int64_t>(limits.max));
    out->form.emplace<FixedLength>(FixedLength{static_cast<std::uint64_t>(v)});
    return out;
  }
  std::optional<std::string_view> form;
  for (std::string_view f : kForms) {
    if (!dist->has(f)) continue;
    if (form) {
      throw ConfigError(dist->location_of(f), key_path(*dist, f),
                        "a distribution has exactly one form; '" + std::string(*form) +
                            "' is already given");
    }
    form = f;
  }
  if (!form) {
    out.reset();
  } else if (*form == "uniform") {
    out->form.emplace<UniformLength>(read_uniform(*dist, limits));
  } else if (*form == "normal") {
    out->form.emplace<NormalLength>(read_normal(*dist, limits));
  } else {
    out->form.emplace<ChoiceLength>(read_choices(*dist, limits));
  }
  return out;
}

void throw_missing_distribution(const Section& parent, std::string_view key) {
  throw ConfigError(parent.location_of(key), key_path(parent, key),
                    "expected a length or a distribution: {uniform: [min, max]}, "
                    "{normal: {mean: M, std: S, min: A, max: B}} or {choices: [a, b, ...]}");
}

}  // namespace socsim::runtime
