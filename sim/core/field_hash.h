#pragma once
// A cheap hash of fields (integers, or a double's bits) for in-memory memo tables (lowered work, GEMM plans) that are
// looked up tens of thousands of times a run: one multiply per field. boost::hash_combine's
// 64-bit mix cost more per lookup than the tree it replaced. Equality still compares every field,
// so a field left out or a collision costs a comparison, never a wrong entry.
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace socsim {

constexpr std::size_t hash_fields(std::initializer_list<std::uint64_t> fields) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (const std::uint64_t v : fields) h = (h ^ v) * 0xFF51AFD7ED558CCDull;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

}  // namespace socsim
