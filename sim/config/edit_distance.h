#pragma once
// Internal: typo distance for "did you mean" hints on unknown keys.
#include <cstddef>
#include <string_view>

namespace socsim::config::detail {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// adjacent characters each cost 1 ("peka" -> "peak" is one typo, not two).
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace socsim::config::detail
