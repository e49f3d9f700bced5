// Tensor's storage: zero unless a producer asks for it unset (Tensor::uninitialized_matrix).
#include "kernels/tensor/tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace socsim::kernels {
namespace {

TEST(TensorStorage, ConstructedTensorsAreZeroEvenOnReusedHeap) {
  // Tensors of the same size dirtied and freed first, so the allocator likely hands their memory
  // back: a constructor that relied on fresh pages being zero would show it.
  for (int round = 0; round < 4; ++round) {
    {
      Tensor dirty = Tensor::uninitialized_matrix(300, 257, ElemType::kF32);
      std::fill(dirty.raw().begin(), dirty.raw().end(), std::uint8_t{0xA5});
    }
    const Tensor t = Tensor::matrix(300, 257, ElemType::kF32);
    const auto raw = t.raw();
    EXPECT_TRUE(std::all_of(raw.begin(), raw.end(), [](std::uint8_t b) { return b == 0; })) << "round " << round;
    const Tensor i4({3, 5}, ElemType::kI4Packed);
    EXPECT_EQ(i4.bytes(), 8u);
    EXPECT_TRUE(std::all_of(i4.raw().begin(), i4.raw().end(), [](std::uint8_t b) { return b == 0; }));
  }
}

TEST(TensorStorage, UninitializedMatrixHasTheShapeAndBytesOfAZeroedOne) {
  const Tensor u = Tensor::uninitialized_matrix(7, 9, ElemType::kF16), z = Tensor::matrix(7, 9, ElemType::kF16);
  EXPECT_EQ(u.shape(), z.shape());
  EXPECT_EQ(u.bytes(), z.bytes());
  EXPECT_EQ(u.numel(), 63u);
  EXPECT_EQ(u.type(), ElemType::kF16);
  EXPECT_EQ(u.layout(), Layout::kRowMajor);
  EXPECT_THROW(Tensor::uninitialized_matrix(-1, 2, ElemType::kF32), std::invalid_argument);
  EXPECT_THROW(Tensor::uninitialized_matrix(3, 3, ElemType::kI4Packed), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
