#pragma once
// A cheap hash of fields (integers, or a double's bits) for in-memory memo tables (lowered work, GEMM plans) that are
// looked up tens of thousands of times a run: one multiply per field. boost::hash_combine's
// 64-bit mix cost more per lookup than the tree it replaced. Equality still compares every field,
// so a field left out or a collision costs a comparison, never a wrong entry.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string_view>

namespace socsim {

constexpr std::size_t hash_fields(std::initializer_list<std::uint64_t> fields) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (const std::uint64_t v : fields) h = (h ^ v) * 0xFF51AFD7ED558CCDull;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

// The same for a short string (op names, a dozen or two bytes): eight bytes per multiply, the last
// word read overlapping the one before (no per-byte loop beyond seven bytes). std::hash's murmur
// cost as much as the table lookup it served. Equal strings hash alike; tables compare the strings.
inline std::size_t hash_string(std::string_view s) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
  const char* p = s.data();
  std::size_t n = s.size();
  if (n < 8) {
    for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0xFF51AFD7ED558CCDull;
  } else {
    std::uint64_t w;
    for (; n > 8; p += 8, n -= 8) {
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    }
    std::memcpy(&w, s.data() + s.size() - 8, 8);  // the last eight bytes (overlapping: n <= 8 left)
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
  }
  return static_cast<std::size_t>(h ^ (h >> 29));
}

}  // namespace socsim
