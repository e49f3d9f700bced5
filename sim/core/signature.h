#pragma once
// A 128-bit signature built field by field: two independent 64-bit lanes (splitmix64's finalizer
// over the running state), so an accidental match of two different inputs is vanishingly unlikely
// (about 2^-128 per pair). Keys of the run memos (run_memo.h).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

namespace socsim {

using Signature = std::pair<std::uint64_t, std::uint64_t>;

class SignatureBuilder {
 public:
  void add(std::uint64_t v) {
    a_ = mix(a_ ^ v) + 0x9e3779b97f4a7c15ull;
    b_ = mix(b_ + v * 0xff51afd7ed558ccdull) ^ 0xc4ceb9fe1a85ec53ull;
  }
  void add(double v) { add(std::bit_cast<std::uint64_t>(v)); }
  void add(const Signature& k) { add(k.first), add(k.second); }
  // Its length, then its bytes eight at a time (the last word zero-padded): strings of different
  // lengths or contents, one after another, stay apart.
  void add(std::string_view s) {
    add(static_cast<std::uint64_t>(s.size()));
    for (std::size_t i = 0; i < s.size(); i += 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, std::min<std::size_t>(8, s.size() - i));
      add(w);
    }
  }
  Signature key() const { return {a_, b_}; }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t a_ = 0x243f6a8885a308d3ull, b_ = 0x13198a2e03707344ull;
};

// For hash tables keyed by a signature (the run memos, the job profiler): its lanes are already
// mixed, so folding them is enough.
struct SignatureHash {
  std::size_t operator()(const Signature& k) const { return static_cast<std::size_t>(k.first ^ (k.second * 0x9e3779b97f4a7c15ull)); }
};

}  // namespace socsim
