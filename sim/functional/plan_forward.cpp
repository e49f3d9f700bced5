#include "sim/functional/plan_forward.h"

#include "sim/core/host_memory.h"
#include "kernels/tensor/kernel_time.h"
#include "sim/core/run_progress.h"
#include "sim/runtime/executor.h"  // unit_name

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "kernels/elementwise/activation.h"
#include "kernels/elementwise/norm.h"
#include "kernels/elementwise/rope.h"
#include "kernels/quant/int8_quant.h"
#include "sim/functional/attention_exec.h"
#include "sim/functional/linear.h"
#include "sim/functional/tensor_util.h"
#include "kernels/attention/block_sparse.h"
#include "kernels/attention/full_attention.h"
#include "kernels/attention/head_bands.h"
#include "sim/runtime/lowering/sparse_attention_lowering.h"
#include "sim/systems/shadowattn/estimation.h"

namespace socsim::functional {

using kernels::ElemType;
using kernels::Tensor;
using runtime::Precision;

namespace {

Tensor apply_norm(const model::ModelConfig& m, const Tensor& x, const NormWeights& w) {
  const kernels::ScopedKernelTime timed;
  const auto eps = static_cast<float>(m.norm_eps);
  return m.norm == model::NormKind::kRmsNorm ? kernels::rms_norm(x, w.weight, eps) : kernels::layer_norm(x, w.weight, w.bias, eps);
}

Tensor activate(model::Activation a, const Tensor& x) {
  const kernels::ScopedKernelTime timed;
  switch (a) {
    case model::Activation::kSilu: return kernels::silu(x);
    case model::Activation::kGelu: return kernels::gelu_erf(x);
    case model::Activation::kGeluTanh: return kernels::gelu_tanh(x);
    case model::Activation::kRelu: {
      Tensor y = x;
      for (float& v : y.data<float>()) v = v > 0 ? v : 0.0f;
      return y;
    }
  }
  throw std::logic_error("unknown activation");
}

void add_bias(Tensor& x, const std::vector<float>& bias) {
  if (bias.empty()) return;
  const std::size_t n = bias.size(), rows = x.numel() / n;
  auto d = x.data<float>();
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < n; ++c) d[r * n + c] += bias[c];
  }
}

void add_into(Tensor& x, const Tensor& y) {
  auto a = x.data<float>();
  auto b = y.data<float>();
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
}

// A decoder-layer matmul as its job computes it (precision and, for per-tensor W8A8, how its
// activation outliers are handled).
// `down`: the FFN-down, Q8_0 when the job asks for it (the rule of its lowering). TTS's NPU kernels
// (tts-npu: hmx_gemv) keep the weights in tile groups unless the layout is ggml's (baseline).
Tensor linear(Linear& l, const Tensor& x, const OpPlacement& p, bool down = false, std::optional<float> offline_scale = std::nullopt) {
  if (p.unit == kernels::Unit::kNpu && p.npu_kernels.hmx_gemv) {
    const auto f = down && p.npu_kernels.q8_0_down ? kernels::BlockFormat::kQ8_0 : kernels::BlockFormat::kQ4_0;
    return l.apply_block(x, p.precision, f, p.npu_kernels.dequant != kernels::DequantLayout::kBaseline);
  }
  return l.apply(x, p.precision, p.outliers, p.outlier_channels, offline_scale);
}

// Columns [c0, c0 + cols) of a row-major [k x n] matrix.
Tensor column_slice(const Tensor& w, std::int64_t c0, std::int64_t cols) {
  const std::int64_t k = w.dim(0), n = w.dim(1);
  Tensor out = f32_matrix(static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(cols));
  const float* src = w.data<float>().data();
  float* dst = out.data<float>().data();
  for (std::int64_t r = 0; r < k; ++r) std::memcpy(dst + r * cols, src + r * n + c0, static_cast<std::size_t>(cols) * sizeof(float));
  return out;
}

}  // namespace

// One layer's weights, their quantized forms (made on first use) and its KV cache, per sequence
// [kv_heads, tokens, head_dim], filled position by position as segments run.
class PlanForward::LayerState {
 public:
  LayerState(std::uint32_t index, const LayerWeights& w, const model::ModelConfig& m, const ForwardShape& s)
      : layer(index),
        weights(w),
        q(w.q, Linear::Orientation::kInOut),
        k(w.k, Linear::Orientation::kInOut),
        v(w.v, Linear::Orientation::kInOut),
        o(w.o, Linear::Orientation::kInOut),
        gate(m.gated_mlp ? w.gate : w.up, Linear::Orientation::kInOut),
        up(w.up, Linear::Orientation::kInOut),
        down(w.down, Linear::Orientation::kInOut),
        k_cache(s.sequences, std::vector<float>(m.kv_heads * s.tokens() * m.head_dim)),
        v_cache(k_cache) {}
  std::uint32_t layer;
  const LayerWeights& weights;
  Linear q, k, v, o, gate, up, down;
  std::vector<std::vector<float>> k_cache, v_cache;
};

PlanForward::PlanForward(const model::ModelConfig& model, const runtime::Plan& plan, const ForwardShape& shape,
                         const std::vector<std::int32_t>& ids, const WeightSource& weights)
    : model_(model), placement_(plan), shape_(shape) {
  if (plan.info.contains("buckets_enabled")) {
    buckets_enabled_ = plan.info["buckets_enabled"].get<bool>();
    buckets_ = plan.info["buckets"].get<std::uint32_t>();
    bucket_step_ = plan.info["step"].get<double>();
  }
  if (ids.size() != shape.sequences * shape.tokens()) throw std::invalid_argument("token ids do not match the shape");
  // The plan's prefill chunks; rows past the prompt are padding.
  std::uint64_t done = 0, step = 0;
  for (const std::uint64_t rows : placement_.prefill_chunk_rows()) {
    if (done >= shape.prompt) throw std::logic_error("plan has more prefill chunks than the prompt fills");
    const std::uint64_t real = std::min(rows, shape.prompt - done);
    segments_.push_back({model::Phase::kPrefill, step++, done, real});
    done += real;
  }
  if (done != shape.prompt) throw std::logic_error("plan's prefill chunks cover " + std::to_string(done) + " of " +
                                                   std::to_string(shape.prompt) + " prompt tokens");
  for (std::uint64_t s = 0; s < shape.decode; ++s) segments_.push_back({model::Phase::kDecode, s, shape.prompt + s, 1});
  x_.resize(ids.size() * model.hidden);
  weights.embedding_rows(ids, x_.data());
}

Tensor PlanForward::matmul(const Segment& seg, std::uint32_t layer, const char* name, Linear& whole, const Tensor& weight, const Tensor& x,
                          bool down, std::optional<float> scale) {
  const OpPlacement place = placement_.at(seg.phase, seg.step, layer, name);
  // A batch of decode steps (run_segments): per-tensor min-max INT8 scales are each step's own.
  // (linear() ignores a profiled scale where the input's own min-max is used: the NPU's GEMV on HMX.)
  const bool per_step_scales = step_rows_ != 0 && x.dim(0) > static_cast<std::int64_t>(step_rows_) &&
                               place.precision == Precision::kW8A8 && min_max_input(place);
  Tensor y = per_step_scales ? whole.apply_w8a8_row_blocks(x, static_cast<std::int64_t>(step_rows_)) : linear(whole, x, place, down, scale);
  const std::string gpu = std::string(name) + ".gpu_part";
  if (!placement_.has(seg.phase, seg.step, layer, gpu)) return y;
  // HeteroLLM's split matmul (systems/heterollm/partition_jobs.h): the GPU part computes rows
  // [R - G, R) of the last C columns with the GPU job's kernel and precision, the NPU the rest
  // with the NPU's; each output element is one part's dot product, so the merge is a copy.
  const model::OpDesc& part = placement_.op(seg.phase, seg.step, layer, gpu);
  const std::int64_t rows = y.dim(0), n = y.dim(1);
  const auto cols = static_cast<std::int64_t>(part.n);
  const std::int64_t gpu_rows = std::min(rows, static_cast<std::int64_t>(part.m));
  if (cols <= 0 || cols > n) throw std::logic_error(std::string("split of ") + name + " has " + std::to_string(cols) + " GPU columns of " + std::to_string(n));
  const Tensor w_gpu = column_slice(weight, n - cols, cols);
  Linear gpu_linear(w_gpu, Linear::Orientation::kInOut);
  const Tensor yg = linear(gpu_linear, x, placement_.at(seg.phase, seg.step, layer, gpu), down, scale);
  float* out = y.data<float>().data();
  const float* g = yg.data<float>().data();
  for (std::int64_t r = rows - gpu_rows; r < rows; ++r) std::memcpy(out + r * n + (n - cols), g + r * cols, static_cast<std::size_t>(cols) * sizeof(float));
  ++split_matmuls_;
  return y;
}

const systems::llm_npu::GroupScale* PlanForward::profiled_scale(const Segment& seg, std::uint32_t layer, const char* group) const {
  if (!outlier_calibration_) return nullptr;
  const OpPlacement p = placement_.at(seg.phase, seg.step, layer, group);
  if (p.precision != runtime::Precision::kW8A8 || p.outliers == runtime::OutlierHandling::kMinMax) return nullptr;
  return outlier_calibration_->find(layer, group);  // null for a layer the calibration did not reach (truncated run)
}

std::optional<float> PlanForward::offline_scale(const Segment& seg, std::uint32_t layer, const char* group, const Tensor& x) {
  const auto* g = profiled_scale(seg, layer, group);
  if (!g) return std::nullopt;
  const OpPlacement p = placement_.at(seg.phase, seg.step, layer, group);
  if (p.outliers == runtime::OutlierHandling::kShadow && seg.phase == model::Phase::kPrefill) {
    const auto n = systems::llm_npu::count_outliers(x, *g);
    shadow_outliers_[{seg.step, layer, group}] = {n.channels, n.cold};
  }
  return g->scale;
}

void PlanForward::run_layer(std::uint32_t layer, const LayerWeights& w) {
  check_host_memory();  // also where a pending interrupt stops the work
  LayerState st(layer, w, model_, shape_);
  for (std::size_t i = 0; i < segments_.size();) {
    const std::size_t end = batch_end(layer, i);
    run_segments(st, i, end);
    for (std::size_t j = i; j < end; ++j) progress_functional_step(j + 1, segments_.size());  // a long decode is thousands of segments per layer
    i = end;
  }
}

bool PlanForward::min_max_input(const OpPlacement& p) {
  // linear(): the NPU's GEMV-on-HMX path ignores the outlier handling (apply_block -> apply).
  return p.outliers == runtime::OutlierHandling::kMinMax || (p.unit == kernels::Unit::kNpu && p.npu_kernels.hmx_gemv);
}

bool PlanForward::batchable(const Segment& seg, const OpPlacement& p, std::uint32_t layer, const char* name) const {
  if (row_independent(p.precision)) return true;
  if (p.precision != Precision::kW8A8) return false;
  if (min_max_input(p)) return true;  // each step's rows quantized with their own scale (matmul)
  // Outlier handling with a profiled scale (llm.npu's calibration) is the same for every row;
  // without one, the scale is the whole input's. The scale is the one run_segments asks
  // offline_scale for: q/k/v share q_proj's, gate and up gate_proj's.
  const std::string n = name;
  const char* group = n == "k_proj" || n == "v_proj" ? "q_proj" : n == "up_proj" ? "gate_proj" : name;
  return profiled_scale(seg, layer, group) != nullptr;
}

std::size_t PlanForward::batch_end(std::uint32_t layer, std::size_t first) const {
  const Segment& s0 = segments_[first];
  if (s0.phase != model::Phase::kDecode) return first + 1;
  const std::uint64_t B = shape_.sequences;
  const std::vector<const char*> names = model_.gated_mlp ? std::vector<const char*>{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}
                                                          : std::vector<const char*>{"q_proj", "k_proj", "v_proj", "o_proj", "fc1", "fc2"};
  const auto splits = [&](const Segment& s) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return placement_.has(s.phase, s.step, layer, std::string(n) + ".gpu_part"); });
  };
  std::vector<OpPlacement> first_places;
  for (const char* n : names) {
    first_places.push_back(placement_.at(s0.phase, s0.step, layer, n));
    if (!batchable(s0, first_places.back(), layer, n)) return first + 1;
  }
  if (splits(s0)) return first + 1;
  std::size_t end = first + 1;
  std::uint64_t rows = B * s0.rows;
  for (; end < segments_.size(); ++end) {
    const Segment& s = segments_[end];
    if (s.phase != model::Phase::kDecode || rows + B * s.rows > batch_rows_) break;
    bool same = !splits(s);
    for (std::size_t i = 0; same && i < names.size(); ++i) same = placement_.at(s.phase, s.step, layer, names[i]) == first_places[i];
    if (!same) break;
    rows += B * s.rows;
  }
  return end;
}

void PlanForward::run_segments(LayerState& st, std::size_t first, std::size_t last) {
  const model::ModelConfig& m = model_;
  const Segment& seg = segments_[first];  // the placements of every matmul, alike for all (batch_end)
  const std::uint64_t B = shape_.sequences, h = m.hidden, q_dim = m.heads * m.head_dim, kv_dim = m.kv_heads * m.head_dim;
  ++matmul_batches_;
  step_rows_ = last - first > 1 ? B * seg.rows : 0;  // a batch's steps have one row per sequence each

  // Each segment's rows of every sequence, sequence-major (the planned matmuls' m = rows x
  // sequences), the segments one after another.
  std::vector<std::uint64_t> offset{0};
  for (std::size_t i = first; i < last; ++i) offset.push_back(offset.back() + B * segments_[i].rows);
  Tensor x = f32_matrix(offset.back(), h);
  for (std::size_t i = first; i < last; ++i) {
    const Segment& s = segments_[i];
    for (std::uint64_t b = 0; b < B; ++b) {
      std::memcpy(x.data<float>().data() + (offset[i - first] + b * s.rows) * h, x_.data() + shape_.row(b, s.p0) * h, s.rows * h * sizeof(float));
    }
  }

  const Tensor hn = apply_norm(m, x, st.weights.input_norm);
  const auto qkv_scale = offline_scale(seg, st.layer, "q_proj", hn);
  Tensor q = matmul(seg, st.layer, "q_proj", st.q, st.weights.q, hn, false, qkv_scale),
         k = matmul(seg, st.layer, "k_proj", st.k, st.weights.k, hn, false, qkv_scale),
         v = matmul(seg, st.layer, "v_proj", st.v, st.weights.v, hn, false, qkv_scale);
  add_bias(q, st.weights.q_bias);
  add_bias(k, st.weights.k_bias);
  add_bias(v, st.weights.v_bias);

  // Attention segment by segment, in order: each appends its keys and values to the cache the
  // next one reads.
  Tensor attn = f32_matrix(offset.back(), q_dim);
  for (std::size_t i = first; i < last; ++i) {
    const std::uint64_t o = offset[i - first];
    attend(st, segments_[i], q.data<float>().data() + o * q_dim, k.data<float>().data() + o * kv_dim, v.data<float>().data() + o * kv_dim,
           attn.data<float>().data() + o * q_dim);
  }
  {
    Tensor o = matmul(seg, st.layer, "o_proj", st.o, st.weights.o, attn, false, offline_scale(seg, st.layer, "o_proj", attn));
    add_bias(o, st.weights.o_bias);
    add_into(x, o);
  }

  const Tensor hn2 = apply_norm(m, x, st.weights.post_norm);
  if (m.gated_mlp) {
    const auto gate_scale = offline_scale(seg, st.layer, "gate_proj", hn2);
    Tensor g = matmul(seg, st.layer, "gate_proj", st.gate, st.weights.gate, hn2, false, gate_scale);
    add_bias(g, st.weights.gate_bias);
    g = activate(m.activation, g);
    Tensor u = matmul(seg, st.layer, "up_proj", st.up, st.weights.up, hn2, false, gate_scale);
    add_bias(u, st.weights.up_bias);
    const Tensor gu = [&] {
      const kernels::ScopedKernelTime timed;
      return kernels::gate_mul(g, u);
    }();
    Tensor d = matmul(seg, st.layer, "down_proj", st.down, st.weights.down, gu, true, offline_scale(seg, st.layer, "down_proj", gu));
    add_bias(d, st.weights.down_bias);
    add_into(x, d);
  } else {
    Tensor f = matmul(seg, st.layer, "fc1", st.up, st.weights.up, hn2, false, offline_scale(seg, st.layer, "fc1", hn2));
    add_bias(f, st.weights.up_bias);
    const Tensor a = activate(m.activation, f);
    Tensor d = matmul(seg, st.layer, "fc2", st.down, st.weights.down, a, false, offline_scale(seg, st.layer, "fc2", a));
    add_bias(d, st.weights.down_bias);
    add_into(x, d);
  }
  for (std::size_t i = first; i < last; ++i) {
    const Segment& s = segments_[i];
    for (std::uint64_t b = 0; b < B; ++b) {
      std::memcpy(x_.data() + shape_.row(b, s.p0) * h, x.data<float>().data() + (offset[i - first] + b * s.rows) * h, s.rows * h * sizeof(float));
    }
  }
}

void PlanForward::attend(LayerState& st, const Segment& seg, const float* q_rows, const float* k_rows, const float* v_rows, float* attn_rows) {
  const model::ModelConfig& m = model_;
  const std::uint64_t B = shape_.sequences, r = seg.rows, hd = m.head_dim;
  const std::uint64_t heads = m.heads, kvh = m.kv_heads, q_dim = heads * hd, kv_dim = kvh * hd, T = shape_.tokens();

  // shadowAttn's plans: cg-sparse (attn_scores + topk: FP32 estimation), shadowattn (per-head
  // topk.h<i>: INT8 estimation with bucket scales), cg-block-sparse; else full attention.
  enum class Sparse { kNone, kOracle, kShadow, kBlock } sparse = Sparse::kNone;
  const auto has = [&](const char* op) { return placement_.has(seg.phase, seg.step, st.layer, op); };
  if (has("attn_scores")) {
    if (has("topk")) sparse = Sparse::kOracle;
  } else if (has("topk.h0")) {
    sparse = Sparse::kShadow;
  } else if (has("block_sparse_attention")) {
    sparse = Sparse::kBlock;
  }
  AttentionKind kind = AttentionKind::kF32;
  if (sparse == Sparse::kNone) {
    const OpPlacement attn_place = placement_.at(seg.phase, seg.step, st.layer, "attn_scores");
    kind = attention_kind(attn_place);
    attention_used_[std::string(runtime::unit_name(attn_place.unit)) + "/" + runtime::precision_name(attn_place.precision)] =
        attention_kind_name(kind);
  } else {
    // Named by where the plan puts each stage (the arithmetic is the same FP32 on either unit).
    const auto unit_of = [&](const char* op) { return std::string(runtime::unit_name(placement_.at(seg.phase, seg.step, st.layer, op).unit)); };
    const std::string label = sparse == Sparse::kShadow   ? "npu-estimate/" + unit_of("topk.h0") + "-topk/" + unit_of("sparse_attention.h0") + "-sparse"
                              : sparse == Sparse::kOracle ? unit_of("attn_scores") + "-estimate/" + unit_of("topk") + "-topk/" +
                                                                unit_of("sparse_attention") + "-sparse"
                                                          : unit_of("block_sparse_attention") + "-block-sparse";
    attention_used_[label] = sparse == Sparse::kBlock ? "fp32-block-sparse" : "fp32-sparse";
  }
  const auto run_sparse = [&](const Tensor& qh, const Tensor& kt, const Tensor& vt, std::uint64_t sequence) {
    const kernels::ScopedKernelTime timed;
    const Tensor full = kernels::attention_f32(qh, kt, vt, seg.p0);
    Tensor out;
    if (sparse == Sparse::kBlock) {
      const double ratio = runtime::lowering::op_ratio(placement_.op(seg.phase, seg.step, st.layer, "block_sparse_attention"));
      const auto sel = kernels::select_blocks(qh, kt, seg.p0, {64, 0, ratio});
      out = kernels::block_sparse_attention_f32(qh, kt, vt, seg.p0, sel);
    } else {
      out = Tensor(qh.shape(), ElemType::kF32);
      const std::int64_t rr = qh.shape()[1], nn = kt.shape()[1], dd = qh.shape()[2];
      const std::uint64_t group = heads / kvh;
      // Per-head scales and, for shadowattn, the bucket grid around the calibrated mean (without
      // a calibration, this layer's own mean).
      std::vector<Tensor> qs_h, ks_h, vs_h;
      std::vector<systems::shadowattn::ScalePair> scales;
      systems::shadowattn::ScalePair mean{0, 0};
      for (std::uint64_t hh = 0; hh < heads; ++hh) {
        const std::uint64_t g = hh / group;
        Tensor a({rr, dd}, ElemType::kF32), kk({nn, dd}, ElemType::kF32), vv({nn, dd}, ElemType::kF32);
        std::memcpy(a.data<float>().data(), qh.data<float>().data() + hh * static_cast<std::uint64_t>(rr * dd), static_cast<std::size_t>(rr * dd) * sizeof(float));
        std::memcpy(kk.data<float>().data(), kt.data<float>().data() + g * static_cast<std::uint64_t>(nn * dd), static_cast<std::size_t>(nn * dd) * sizeof(float));
        std::memcpy(vv.data<float>().data(), vt.data<float>().data() + g * static_cast<std::uint64_t>(nn * dd), static_cast<std::size_t>(nn * dd) * sizeof(float));
        scales.push_back({systems::shadowattn::absmax_scale(a), systems::shadowattn::absmax_scale(kk)});
        mean.q += scales.back().q / static_cast<double>(heads);
        mean.k += scales.back().k / static_cast<double>(heads);
        qs_h.push_back(std::move(a));
        ks_h.push_back(std::move(kk));
        vs_h.push_back(std::move(vv));
      }
      const auto grid = systems::shadowattn::bucket_grid(bucket_centre_.value_or(mean), buckets_, bucket_step_);
      if (sparse == Sparse::kShadow && buckets_enabled_) bucket_use_.resize(grid.size());
      std::vector<double> ratios(heads);
      for (std::uint64_t hh = 0; hh < heads; ++hh) {
        const std::string topk = sparse == Sparse::kShadow ? "topk.h" + std::to_string(hh) : "topk";
        ratios[hh] = runtime::lowering::op_ratio(placement_.op(seg.phase, seg.step, st.layer, topk));
        if (sparse == Sparse::kShadow && buckets_enabled_) {
          const std::size_t b = systems::shadowattn::nearest_bucket(grid, scales[hh]);
          scales[hh] = grid[b];
          ++bucket_use_[b];
          if (seg.phase == model::Phase::kPrefill) head_buckets_[{seg.step, st.layer, sequence * heads + hh}] = b;
        }
      }
      // Each head's estimation, top-k and sparse attention on its own (bands of heads on the GEMM
      // threads when the segment is long enough to repay them), then the statistics summed in head
      // order: the same numbers whatever the threads.
      std::vector<systems::shadowattn::HeadResult> results(heads);
      const double work = static_cast<double>(rr) * static_cast<double>(nn) * static_cast<double>(dd) * static_cast<double>(heads);
      kernels::parallel_bands(heads, kernels::threads_for(work, kernels::kAttentionParallelMacs, heads), [&](std::uint64_t h0, std::uint64_t h1) {
        for (std::uint64_t hh = h0; hh < h1; ++hh) {
          results[hh] = systems::shadowattn::sparse_head(qs_h[hh], ks_h[hh], vs_h[hh], seg.p0, ratios[hh], sparse == Sparse::kShadow ? &scales[hh] : nullptr);
        }
      });
      for (std::uint64_t hh = 0; hh < heads; ++hh) {
        const auto& r = results[hh];
        sparse_.recall_hits += r.recall * static_cast<double>(r.reference_size);
        sparse_.recall_total += static_cast<double>(r.reference_size);
        std::memcpy(out.data<float>().data() + hh * static_cast<std::uint64_t>(rr * dd), r.out.data<float>().data(), static_cast<std::size_t>(rr * dd) * sizeof(float));
      }
    }
    const Tensor& out_c = out;
    const auto a = out_c.data<float>(), f = full.data<float>();
    for (std::size_t i = 0; i < a.size(); ++i) {
      sparse_.diff_sq += static_cast<double>(a[i] - f[i]) * static_cast<double>(a[i] - f[i]);
      sparse_.ref_sq += static_cast<double>(f[i]) * static_cast<double>(f[i]);
    }
    return out;
  };
  const kernels::RopeParams rope{m.rope_theta, m.rotary_fraction, m.rope_scaling};
  const std::uint64_t n = seg.p0 + r;  // keys visible to the segment's last row
  for (std::uint64_t b = 0; b < B; ++b) {
    Tensor qs({static_cast<std::int64_t>(r), static_cast<std::int64_t>(heads), static_cast<std::int64_t>(hd)}, ElemType::kF32);
    Tensor ks({static_cast<std::int64_t>(r), static_cast<std::int64_t>(kvh), static_cast<std::int64_t>(hd)}, ElemType::kF32);
    std::memcpy(qs.data<float>().data(), q_rows + b * r * q_dim, r * q_dim * sizeof(float));
    std::memcpy(ks.data<float>().data(), k_rows + b * r * kv_dim, r * kv_dim * sizeof(float));
    {
      const kernels::ScopedKernelTime timed;
      kernels::apply_rope(qs, rope, seg.p0);
      kernels::apply_rope(ks, rope, seg.p0);
    }
    // Append this segment's keys and values to the cache, then attend over positions [0, n).
    float* kc = st.k_cache[b].data();
    float* vc = st.v_cache[b].data();
    const float* vs = v_rows + b * r * kv_dim;
    for (std::uint64_t i = 0; i < r; ++i) {
      for (std::uint64_t g = 0; g < kvh; ++g) {
        std::memcpy(kc + (g * T + seg.p0 + i) * hd, ks.data<float>().data() + (i * kvh + g) * hd, hd * sizeof(float));
        std::memcpy(vc + (g * T + seg.p0 + i) * hd, vs + (i * kvh + g) * hd, hd * sizeof(float));
      }
    }
    Tensor qh({static_cast<std::int64_t>(heads), static_cast<std::int64_t>(r), static_cast<std::int64_t>(hd)}, ElemType::kF32);
    for (std::uint64_t i = 0; i < r; ++i) {
      for (std::uint64_t hh = 0; hh < heads; ++hh) {
        std::memcpy(qh.data<float>().data() + (hh * r + i) * hd, qs.data<float>().data() + (i * heads + hh) * hd, hd * sizeof(float));
      }
    }
    Tensor kt({static_cast<std::int64_t>(kvh), static_cast<std::int64_t>(n), static_cast<std::int64_t>(hd)}, ElemType::kF32);
    Tensor vt(kt.shape(), ElemType::kF32);
    for (std::uint64_t g = 0; g < kvh; ++g) {
      std::memcpy(kt.data<float>().data() + g * n * hd, kc + g * T * hd, n * hd * sizeof(float));
      std::memcpy(vt.data<float>().data() + g * n * hd, vc + g * T * hd, n * hd * sizeof(float));
    }
    const Tensor out = sparse == Sparse::kNone ? run_attention(kind, qh, kt, vt, seg.p0, lut_) : run_sparse(qh, kt, vt, b);
    for (std::uint64_t i = 0; i < r; ++i) {
      for (std::uint64_t hh = 0; hh < heads; ++hh) {
        std::memcpy(attn_rows + (b * r + i) * q_dim + hh * hd, out.data<float>().data() + (hh * r + i) * hd,
                    hd * sizeof(float));
      }
    }
  }
}

std::vector<HeadGroup> PlanForward::head_groups(const NormWeights& final_norm) const {
  const std::uint64_t B = shape_.sequences, h = model_.hidden, L = model_.layers;
  const auto normed_rows = [&](std::uint64_t first, std::uint64_t count) {
    // Positions [first, first + count) of every sequence, final-normed.
    Tensor x = f32_matrix(B * count, h);
    for (std::uint64_t b = 0; b < B; ++b) {
      std::memcpy(x.data<float>().data() + b * count * h, x_.data() + shape_.row(b, first) * h, count * h * sizeof(float));
    }
    return apply_norm(model_, x, final_norm);
  };
  std::vector<HeadGroup> groups;
  for (std::uint64_t g = 0; g < shape_.head_groups(); ++g) {
    const bool prefill = g == 0;
    const model::Phase phase = prefill ? model::Phase::kPrefill : model::Phase::kDecode;
    const std::uint64_t step = prefill ? placement_.prefill_chunk_rows().size() - 1 : g - 1;
    HeadGroup hg;
    hg.hidden = normed_rows(shape_.head_position(g), 1);
    hg.precision = placement_.at(phase, step, static_cast<std::uint32_t>(L), "lm_head").precision;
    if (hg.precision == Precision::kW8A8 || hg.precision == Precision::kW8A8Group) {
      // The planned head's rows per sequence: 1 (the last token) or the whole last chunk; its
      // padding rows are not real and are left out.
      const std::uint64_t planned = placement_.op(phase, step, static_cast<std::uint32_t>(L), "lm_head").m / B;
      const std::uint64_t covered = prefill ? std::min(planned, segments_[step].rows) : 1;
      hg.activation_scale = kernels::minmax_scale(normed_rows(shape_.head_position(g) + 1 - covered, covered));
    }
    groups.push_back(std::move(hg));
  }
  return groups;
}

}  // namespace socsim::functional
