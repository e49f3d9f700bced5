#pragma once
// A dense tensor for functional mode: shape, element type, layout and owned storage. Kernels take
// typed views (data<T>()) so inner loops see plain pointers; the element type is checked once at
// the view. Int4 is packed two per byte (low nibble first), as Q4_0 stores it.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/tensor/half.h"

namespace socsim::kernels {

enum class ElemType { kF32, kF16, kI8, kI32, kI4Packed };
enum class Layout {
  kRowMajor,
  kHmxTiled,  // 32x32 tiles, tiles row-major, inside a tile row pairs interleaved (HMX FP16)
};

const char* elem_type_name(ElemType t);
// Bytes to store `count` elements (int4: two per byte, rounded up).
std::size_t storage_bytes(ElemType t, std::size_t count);

template <class T> constexpr ElemType elem_type_of();
template <> constexpr ElemType elem_type_of<float>() { return ElemType::kF32; }
template <> constexpr ElemType elem_type_of<half>() { return ElemType::kF16; }
template <> constexpr ElemType elem_type_of<std::int8_t>() { return ElemType::kI8; }
template <> constexpr ElemType elem_type_of<std::int32_t>() { return ElemType::kI32; }

// std::allocator whose construct() without arguments default-initializes (leaves a byte as it
// is) instead of zeroing: Tensor zeroes its storage itself unless the caller writes every element.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

class Tensor {
 public:
  Tensor() = default;
  // Copies are checked against the host memory limit like new tensors (a calibration copies its
  // base forward's tensors once per ablated head).
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  ~Tensor() = default;
  // Elements zero.
  Tensor(std::vector<std::int64_t> shape, ElemType type, Layout layout = Layout::kRowMajor);
  static Tensor matrix(std::int64_t rows, std::int64_t cols, ElemType type) { return Tensor({rows, cols}, type); }
  // Elements unset: for a producer that writes every one before anything reads them (synthetic
  // weights: zeroing half a billion values first was 3% of a functional run). Not for packed
  // int4, whose last byte may hold half an element (std::invalid_argument).
  static Tensor uninitialized_matrix(std::int64_t rows, std::int64_t cols, ElemType type) {
    if (type == ElemType::kI4Packed) throw std::invalid_argument("uninitialized_matrix: packed int4 storage must be zeroed");
    return Tensor({rows, cols}, type, Layout::kRowMajor, false);
  }

  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::int64_t dim(std::size_t i) const { return shape_.at(i); }
  std::size_t rank() const { return shape_.size(); }
  std::size_t numel() const { return numel_; }
  ElemType type() const { return type_; }
  Layout layout() const { return layout_; }
  std::size_t bytes() const { return storage_.size(); }

  template <class T>
  std::span<T> data() {
    check<T>();
    return {reinterpret_cast<T*>(storage_.data()), numel_};
  }
  template <class T>
  std::span<const T> data() const {
    check<T>();
    return {reinterpret_cast<const T*>(storage_.data()), numel_};
  }
  std::span<std::uint8_t> raw() { return storage_; }
  std::span<const std::uint8_t> raw() const { return storage_; }

 private:
  template <class T>
  void check() const {
    if (elem_type_of<std::remove_const_t<T>>() != type_) {
      throw std::logic_error(std::string("tensor of ") + elem_type_name(type_) + " viewed as " +
                             elem_type_name(elem_type_of<std::remove_const_t<T>>()));
    }
  }
  std::vector<std::int64_t> shape_;
  std::size_t numel_ = 0;
  ElemType type_ = ElemType::kF32;
  Layout layout_ = Layout::kRowMajor;
  Tensor(std::vector<std::int64_t> shape, ElemType type, Layout layout, bool zero);
  std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>> storage_;
};

}  // namespace socsim::kernels
