#include "kernels/attention/attention_shape.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace socsim::kernels {

float AttentionShape::default_scale() const { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim))); }

void AttentionShape::validate() const {
  if (heads == 0 || kv_heads == 0 || head_dim == 0 || q_len == 0) throw std::invalid_argument("attention shape has an empty dimension");
  if (heads % kv_heads != 0) {
    throw std::invalid_argument("attention: " + std::to_string(heads) + " query heads are not a multiple of " +
                                std::to_string(kv_heads) + " kv heads");
  }
  if (kv_len < q_pos0 + q_len) {
    throw std::invalid_argument("attention: " + std::to_string(kv_len) + " keys cannot cover queries at positions " +
                                std::to_string(q_pos0) + ".." + std::to_string(q_pos0 + q_len - 1));
  }
}

AttentionShape attention_shape_of(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, ElemType type) {
  for (const Tensor* t : {&q, &k, &v}) {
    if (t->rank() != 3) throw std::invalid_argument("attention expects rank-3 Q [heads, m, d], K/V [kv_heads, n, d]");
    if (t->type() != type) throw std::invalid_argument(std::string("attention expects ") + elem_type_name(type) + " tensors");
  }
  if (k.shape() != v.shape()) throw std::invalid_argument("attention: K and V shapes differ");
  if (q.dim(2) != k.dim(2)) throw std::invalid_argument("attention: Q and K head dims differ");
  AttentionShape s;
  s.heads = static_cast<std::uint64_t>(q.dim(0));
  s.q_len = static_cast<std::uint64_t>(q.dim(1));
  s.head_dim = static_cast<std::uint64_t>(q.dim(2));
  s.kv_heads = static_cast<std::uint64_t>(k.dim(0));
  s.kv_len = static_cast<std::uint64_t>(k.dim(1));
  s.q_pos0 = p0;
  s.validate();
  return s;
}

}  // namespace socsim::kernels
