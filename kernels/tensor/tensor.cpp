#include "kernels/tensor/tensor.h"

#include <limits>
#include <stdexcept>

#include "sim/core/host_memory.h"

namespace socsim::kernels {

namespace {
constexpr std::size_t kCheckedTensorBytes = std::size_t{1} << 20;

// Tensors of 1 MiB or more are checked against the thread's host memory limit (--max-host-memory)
// before they are allocated (a /proc read, small beside making them): a functional run of a huge
// batch holds gigabytes within one layer, and a calibration's 59 MiB activations, unchecked below
// the 64 MiB this was, took it 1.25 times past the limit. Smaller ones count towards the next
// check (note_host_growth: a layer's many small tensors).
void guard_allocation(std::size_t bytes) {
  if (bytes >= kCheckedTensorBytes) {
    check_host_memory_for(bytes);
  } else {
    note_host_growth(bytes);
  }
}
}  // namespace

const char* elem_type_name(ElemType t) {
  switch (t) {
    case ElemType::kF32: return "f32";
    case ElemType::kF16: return "f16";
    case ElemType::kI8: return "i8";
    case ElemType::kI32: return "i32";
    case ElemType::kI4Packed: return "i4";
  }
  return "?";
}

std::size_t storage_bytes(ElemType t, std::size_t count) {
  switch (t) {
    case ElemType::kF32: case ElemType::kI32: return 4 * count;
    case ElemType::kF16: return 2 * count;
    case ElemType::kI8: return count;
    case ElemType::kI4Packed: return (count + 1) / 2;
  }
  return 0;
}

Tensor::Tensor(std::vector<std::int64_t> shape, ElemType type, Layout layout) : Tensor(std::move(shape), type, layout, true) {}

Tensor::Tensor(std::vector<std::int64_t> shape, ElemType type, Layout layout, bool zero)
    : shape_(std::move(shape)), type_(type), layout_(layout) {
  numel_ = 1;
  for (auto d : shape_) {
    if (d < 0) throw std::invalid_argument("tensor dimension must be >= 0");
    if (d > 0 && numel_ > std::numeric_limits<std::size_t>::max() / 4 / static_cast<std::size_t>(d)) {
      throw std::length_error("tensor of more elements than the host can address");
    }
    numel_ *= static_cast<std::size_t>(d);
  }
  guard_allocation(storage_bytes(type_, numel_));
  if (zero) {
    storage_.assign(storage_bytes(type_, numel_), 0);
  } else {
    storage_.resize(storage_bytes(type_, numel_));
  }
}

Tensor::Tensor(const Tensor& other) : shape_(other.shape_), numel_(other.numel_), type_(other.type_), layout_(other.layout_) {
  guard_allocation(other.storage_.size());
  storage_ = other.storage_;
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) {
    guard_allocation(other.storage_.size());
    shape_ = other.shape_;
    numel_ = other.numel_;
    type_ = other.type_;
    layout_ = other.layout_;
    storage_ = other.storage_;
  }
  return *this;
}

}  // namespace socsim::kernels
