// Section: readers for quantities with units (bandwidths, times, sizes, ...).
#include <cstdint>
#include <stdexcept>

#include "sim/config/config_tree.h"
#include "sim/config/longest_time.h"
#include "sim/config/quantity_format.h"
#include "sim/config/section_access.h"
#include "sim/config/unit_table.h"

namespace socsim::config {

using detail::Node;

namespace {

std::string expected_what(Quantity q) {
  return std::string(detail::article_for(q)) + " " + std::string(quantity_name(q));
}

// parse_quantity's std::invalid_argument carries the full explanation; only the location and
// key are added here.
double to_quantity(const Node& value, const std::string& key_path, Quantity q) {
  const std::string& text = detail::scalar_text(value, key_path, expected_what(q));
  double v = 0;
  try {
    v = parse_quantity(text, q);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(value.location, key_path, e.what());
  }
  if (q == Quantity::kSize) {
    try {
      check_byte_count(v, text);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(value.location, key_path, e.what());
    }
  }
  return v;
}

}  // namespace

double Section::quantity(std::string_view key, Quantity q) const {
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  return to_quantity(value, detail::join_path(path_, key), q);
}

double Section::quantity(std::string_view key, Quantity q, double min, double max) const {
  const std::string key_path = detail::join_path(path_, key);
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  const double v = to_quantity(value, key_path, q);
  if (v < min || v > max) {
    detail::throw_range(value, key_path, detail::format_quantity(min, q),
                        detail::format_quantity(max, q));
  }
  return v;
}

Tick Section::time(std::string_view key) const {
  const std::string key_path = detail::join_path(path_, key);
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  const std::string& text = detail::scalar_text(value, key_path, expected_what(Quantity::kTime));
  Tick t = 0;
  try {
    t = parse_time_ticks(text);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(value.location, key_path, e.what());
  }
  note_time_read(key_path, text, value.location, t);  // named if the simulated clock overflows
  return t;
}

double Section::positive_quantity(std::string_view key, Quantity q) const {
  const std::string key_path = detail::join_path(path_, key);
  const Node& value = detail::require_value(detail::as_map(*node_, path_), path_, key);
  const double v = to_quantity(value, key_path, q);
  if (!(v > 0.0)) throw ConfigError(value.location, key_path, "must be > 0, got " + detail::echoed(value.text));
  // socsim's clock counts 64-bit picoseconds (213 days): a clock below 1 MHz or a path below
  // 1 MB/s makes one cycle or one transfer of a model's weights overflow it. No unit of a phone
  // SoC runs that slowly, so such a value is a typo (a missing unit prefix) or a what-if beyond
  // what socsim can represent.
  const double floor = q == Quantity::kFrequency ? 1e6 : q == Quantity::kBandwidth ? 1e6 : 0.0;
  // ... and above 1 THz or 1 PB/s a clock no longer fits the integer Hz and picosecond arithmetic.
  const double ceiling = q == Quantity::kFrequency ? 1e12 : q == Quantity::kBandwidth ? 1e15 : 0.0;
  if (ceiling > 0 && v > ceiling) {
    throw ConfigError(value.location, key_path,
                      "must be at most " + detail::format_quantity(ceiling, q) + " (beyond any SoC; socsim's integer clock arithmetic overflows), got " + detail::echoed(value.text));
  }
  if (v < floor) {
    throw ConfigError(value.location, key_path,
                      "must be at least " + detail::format_quantity(floor, q) +
                          " (socsim's clock counts 64-bit picoseconds; lower values overflow it), got " + detail::echoed(value.text));
  }
  return v;
}

}  // namespace socsim::config
