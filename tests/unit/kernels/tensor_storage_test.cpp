// Tensor's storage: zero unless a producer asks for it unset (Tensor::uninitialized_matrix).
#include "kernels/tensor/tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <cstdint>
#include <vector>

#include "sim/core/host_memory.h"

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

// A large tensor is checked against the thread's host memory limit before it is allocated (a
// functional run of a huge batch held gigabytes within one layer); small ones are not checked.
TEST(TensorStorage, ALargeTensorPastTheHostMemoryLimitIsRefusedBeforeItIsAllocated) {
  const std::uint64_t resident = resident_bytes();
  ASSERT_GT(resident, 0u);
  {
    const ScopedHostMemoryLimit limit(resident + (32 << 20));
    EXPECT_THROW(Tensor::matrix(4096, 8192, ElemType::kF32), HostMemoryExceeded);  // 128 MiB
    try {
      (void)Tensor::uninitialized_matrix(4096, 8192, ElemType::kF32);
      ADD_FAILURE() << "an uninitialized tensor passed the limit too";
    } catch (const HostMemoryExceeded& e) {
      EXPECT_NE(std::string(e.what()).find("with the next 128 MiB it allocates"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(Tensor::matrix(1024, 1024, ElemType::kF32));  // 4 MiB: checked, within the limit
  }
  const ScopedHostMemoryLimit roomy(resident + (1ull << 30));
  EXPECT_EQ(Tensor::matrix(4096, 8192, ElemType::kF32).bytes(), std::size_t{128} << 20);
}

// A copy is checked like a new tensor (a calibration copies its base forward per ablated head);
// moves allocate nothing and are not.
TEST(TensorStorage, CopiesAreCheckedAgainstTheHostMemoryLimit) {
  Tensor big = Tensor::matrix(1024, 1024, ElemType::kF32);  // 4 MiB
  Tensor copy;
  const ScopedHostMemoryLimit limit(std::uint64_t{1} << 20);  // below what the process holds already
  EXPECT_THROW(Tensor{big}, HostMemoryExceeded);
  EXPECT_THROW(copy = big, HostMemoryExceeded);
  EXPECT_EQ(copy.bytes(), 0u);  // left as it was
  EXPECT_NO_THROW(copy = std::move(big));
  EXPECT_EQ(copy.bytes(), std::size_t{4} << 20);
}

// Dimensions whose product no host could address are an error, not a wrapped small tensor.
TEST(TensorStorage, DimensionsPastTheAddressSpaceAreAnError) {
  EXPECT_THROW(Tensor::matrix(std::int64_t{1} << 40, std::int64_t{1} << 40, ElemType::kF32), std::length_error);
}

}  // namespace
}  // namespace socsim::kernels
