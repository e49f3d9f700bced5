#pragma once
// The NPU's table exp (TTS paper, section 5.2.1). Safe softmax subtracts the row maximum, so every
// exp input is <= 0 and only the non-positive half of the FP16 codes is stored: 32,768 FP16
// entries, 64 KiB, which is what a vgather's 64 KiB offset range can address. The lookup clears
// the sign bit and uses the remaining 15 bits as the index (byte offset = index * 2).
//
// Entries are exp(x) evaluated in double and rounded once to FP16, so each is the correctly
// rounded exp of its input: within 0.5 ulp (tested over all 32,768 entries). Inputs must be <= 0;
// a positive x looks up exp(-x), exactly as the hardware would.
//
// The table is an object, built once by whoever uses it (no global state); on the NPU it is
// computed at start-up and stays resident in TCM.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/tensor/half.h"

namespace socsim::kernels {

class LutExpTable {
 public:
  static constexpr std::size_t kEntries = 32768;
  static constexpr std::uint16_t kIndexMask = 0x7fff;

  LutExpTable();

  half lookup(half x) const { return table_[half_bits(x) & kIndexMask]; }
  std::span<const half> entries() const { return table_; }
  // Bytes the table occupies in TCM.
  static constexpr std::size_t bytes() { return kEntries * sizeof(half); }

 private:
  std::vector<half> table_;
};

}  // namespace socsim::kernels
