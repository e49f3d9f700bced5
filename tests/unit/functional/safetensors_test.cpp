// Safetensors weights: a file the test writes from synthetic weights loads back bit for bit and
// gives the same run; every kind of bad file is a config::ConfigError naming the file and tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "functional_test_helpers.h"
#include "kernels/tensor/half.h"
#include "sim/config/config_error.h"
#include "sim/functional/functional_run.h"
#include "sim/functional/safetensors_file.h"
#include "sim/functional/safetensors_weights.h"
#include "sim/functional/synthetic_weights.h"
#include "sim/functional/tensor_util.h"

namespace socsim::functional {
namespace {

using test::RawTensor;

std::vector<float> values(const kernels::Tensor& t) { return {t.data<float>().begin(), t.data<float>().end()}; }

// The Hugging Face layout of `w`'s weights: [out, in] matrices.
std::map<std::string, RawTensor> hf_tensors(const model::ModelConfig& m, const SyntheticWeights& w) {
  std::map<std::string, RawTensor> t;
  const auto mat = [&](const std::string& name, const kernels::Tensor& in_out) {
    t[name] = test::f32_tensor({in_out.dim(1), in_out.dim(0)}, values(transpose(in_out)));
  };
  const auto vec = [&](const std::string& name, const std::vector<float>& v) {
    t[name] = test::f32_tensor({static_cast<std::int64_t>(v.size())}, v);
  };
  t["model.embed_tokens.weight"] = test::f32_tensor({static_cast<std::int64_t>(m.vocab), static_cast<std::int64_t>(m.hidden)},
                                                    values(w.lm_head_rows(0, m.vocab)));
  for (std::uint32_t l = 0; l < m.layers; ++l) {
    const auto lw = w.layer(l);
    const std::string p = "model.layers." + std::to_string(l) + ".";
    mat(p + "self_attn.q_proj.weight", lw.q);
    mat(p + "self_attn.k_proj.weight", lw.k);
    mat(p + "self_attn.v_proj.weight", lw.v);
    mat(p + "self_attn.o_proj.weight", lw.o);
    vec(p + "self_attn.q_proj.bias", lw.q_bias);
    vec(p + "self_attn.k_proj.bias", lw.k_bias);
    vec(p + "self_attn.v_proj.bias", lw.v_bias);
    if (m.output_bias) vec(p + "self_attn.o_proj.bias", lw.o_bias);
    mat(p + "mlp.gate_proj.weight", lw.gate);
    mat(p + "mlp.up_proj.weight", lw.up);
    mat(p + "mlp.down_proj.weight", lw.down);
    if (m.mlp_bias) {
      vec(p + "mlp.gate_proj.bias", lw.gate_bias);
      vec(p + "mlp.up_proj.bias", lw.up_bias);
      vec(p + "mlp.down_proj.bias", lw.down_bias);
    }
    vec(p + "input_layernorm.weight", lw.input_norm.weight);
    vec(p + "post_attention_layernorm.weight", lw.post_norm.weight);
  }
  vec("model.norm.weight", w.final_norm().weight);
  return t;
}

struct Fixture {
  model::ModelConfig m = test::tiny_model();
  SyntheticWeights synthetic{m, 21};
  std::map<std::string, RawTensor> tensors = hf_tensors(m, synthetic);
  std::filesystem::path dir = test::scratch("safetensors");
};

TEST(FunctionalSafetensors, RoundTripGivesTheSameWeightsAndRun) {
  Fixture f;
  const auto file = f.dir / "tiny.safetensors";
  test::write_safetensors(file, f.tensors);
  const SafetensorsWeights loaded(file, f.m);
  EXPECT_EQ(loaded.describe(), file.string());
  const auto a = f.synthetic.layer(1), b = loaded.layer(1);
  EXPECT_EQ(values(a.q), values(b.q));
  EXPECT_EQ(values(a.down), values(b.down));
  EXPECT_EQ(a.v_bias, b.v_bias);
  EXPECT_EQ(a.post_norm.weight, b.post_norm.weight);
  EXPECT_EQ(values(f.synthetic.lm_head_rows(30, 20)), values(loaded.lm_head_rows(30, 20)));

  const ForwardShape shape{9, 2, 1};
  const auto plan = test::uniform_plan(f.m, shape, test::at(kernels::Unit::kNpu, runtime::Precision::kW8A8Group),
                                       test::at(kernels::Unit::kCpu, runtime::Precision::kFp32));
  const auto x = compare_with_reference(f.m, plan, shape, f.synthetic, 21, 0);
  const auto y = compare_with_reference(f.m, plan, shape, loaded, 21, 0);
  EXPECT_EQ(std::memcmp(x.system_hidden.raw().data(), y.system_hidden.raw().data(), x.system_hidden.bytes()), 0);
  EXPECT_EQ(x.metrics.logits_rel_error, y.metrics.logits_rel_error);
}

// A llama with attention_bias and mlp_bias: its o_proj and MLP biases are read, and the run with
// them is the run with the synthetic weights they came from.
TEST(FunctionalSafetensors, OutputAndMlpBiasesAreReadAndApplied) {
  Fixture f;
  f.m.output_bias = f.m.mlp_bias = true;
  const SyntheticWeights synthetic(f.m, 21);
  const auto file = f.dir / "biases.safetensors";
  test::write_safetensors(file, hf_tensors(f.m, synthetic));
  const SafetensorsWeights loaded(file, f.m);
  const auto a = synthetic.layer(1), b = loaded.layer(1);
  ASSERT_EQ(a.o_bias.size(), f.m.hidden);
  EXPECT_EQ(a.o_bias, b.o_bias);
  EXPECT_EQ(a.gate_bias, b.gate_bias);
  EXPECT_EQ(a.up_bias, b.up_bias);
  EXPECT_EQ(a.down_bias, b.down_bias);
  const ForwardShape shape{9, 2, 1};
  const auto plan = test::uniform_plan(f.m, shape, test::at(kernels::Unit::kCpu, runtime::Precision::kFp32),
                                       test::at(kernels::Unit::kCpu, runtime::Precision::kFp32));
  const auto x = compare_with_reference(f.m, plan, shape, synthetic, 21, 0);
  const auto y = compare_with_reference(f.m, plan, shape, loaded, 21, 0);
  EXPECT_EQ(std::memcmp(x.system_hidden.raw().data(), y.system_hidden.raw().data(), x.system_hidden.bytes()), 0);
  // FP32 throughout: the system's forward is the reference's, biases included.
  EXPECT_LT(x.metrics.logits_rel_error, 1e-5);
  // Without the biases the same weights give another output.
  auto plain = f.m;
  plain.output_bias = plain.mlp_bias = false;
  const auto z = compare_with_reference(plain, test::uniform_plan(plain, shape, test::at(kernels::Unit::kCpu, runtime::Precision::kFp32),
                                                                  test::at(kernels::Unit::kCpu, runtime::Precision::kFp32)),
                                        shape, SyntheticWeights(plain, 21), 21, 0);
  EXPECT_NE(std::memcmp(x.system_hidden.raw().data(), z.system_hidden.raw().data(), x.system_hidden.bytes()), 0);
  // A checkpoint without them is refused, naming the tensor.
  auto without = hf_tensors(f.m, synthetic);
  without.erase("model.layers.0.mlp.down_proj.bias");
  test::write_safetensors(f.dir / "nobias.safetensors", without);
  EXPECT_THROW(SafetensorsWeights(f.dir / "nobias.safetensors", f.m), config::ConfigError);
}

TEST(FunctionalSafetensors, ReadsF16AndBf16) {
  Fixture f;
  const auto file = f.dir / "dtypes.safetensors";
  const std::vector<float> v{1.5f, -2.25f, 0.0f, 1024.0f};
  RawTensor h{"F16", {4}, {}}, bf{"BF16", {2, 2}, {}};
  for (float x : v) {
    const auto bits = kernels::half_bits(kernels::to_half(x));
    h.bytes.push_back(static_cast<unsigned char>(bits & 0xFF));
    h.bytes.push_back(static_cast<unsigned char>(bits >> 8));
    std::uint32_t u;
    std::memcpy(&u, &x, 4);
    bf.bytes.push_back(static_cast<unsigned char>((u >> 16) & 0xFF));
    bf.bytes.push_back(static_cast<unsigned char>(u >> 24));
  }
  test::write_safetensors(file, {{"h", h}, {"bf", bf}});
  const SafetensorsFile s(file);
  EXPECT_EQ(s.read("h"), v);
  EXPECT_EQ(s.read("bf"), v);  // all four are exact in BF16
  EXPECT_EQ(s.read_rows("bf", 1, 1), (std::vector<float>{0.0f, 1024.0f}));
}

// The error's text: "file: tensor: message".
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FunctionalSafetensors, ErrorsNameTheFileAndTheTensor) {
  Fixture f;
  const auto load = [&](const std::filesystem::path& p) { return error_of([&] { SafetensorsWeights(p, f.m); }); };
  const std::string q = "model.layers.1.self_attn.q_proj.weight";

  auto missing = f.tensors;
  missing.erase(q);
  test::write_safetensors(f.dir / "missing.safetensors", missing);
  auto e = load(f.dir / "missing.safetensors");
  EXPECT_NE(e.find("missing.safetensors"), std::string::npos) << e;
  EXPECT_NE(e.find(q + ": tensor missing"), std::string::npos) << e;

  auto shape = f.tensors;
  shape[q] = test::f32_tensor({64, 32}, std::vector<float>(64 * 32));
  test::write_safetensors(f.dir / "shape.safetensors", shape);
  e = load(f.dir / "shape.safetensors");
  EXPECT_NE(e.find(q + ": wrong shape [64, 32], expected [64, 64]"), std::string::npos) << e;

  auto dtype = f.tensors;
  dtype["model.norm.weight"] = RawTensor{"I8", {64}, std::vector<unsigned char>(64)};
  test::write_safetensors(f.dir / "dtype.safetensors", dtype);
  e = load(f.dir / "dtype.safetensors");
  EXPECT_NE(e.find("model.norm.weight: unsupported dtype I8"), std::string::npos) << e;

  test::write_safetensors(f.dir / "trunc.safetensors", f.tensors, [](nlohmann::json&) {}, 100);
  e = load(f.dir / "trunc.safetensors");
  EXPECT_NE(e.find("trunc.safetensors"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated file"), std::string::npos) << e;

  test::write_safetensors(f.dir / "span.safetensors", f.tensors, [](nlohmann::json& h) {
    h["model.norm.weight"]["data_offsets"][1] = h["model.norm.weight"]["data_offsets"][1].get<std::uint64_t>() - 4;
  });
  e = load(f.dir / "span.safetensors");
  EXPECT_NE(e.find("model.norm.weight: data_offsets span 252 bytes but F32 [64] needs 256"), std::string::npos) << e;

  // A shape whose bytes pass 2^64 (4 x 2^62 elements of F32): the byte count wrapped to 0 and an
  // empty data span passed for it.
  test::write_safetensors(f.dir / "wrap.safetensors", f.tensors, [](nlohmann::json& h) {
    h["model.norm.weight"]["shape"] = nlohmann::json::array({std::uint64_t{1} << 62});
    h["model.norm.weight"]["data_offsets"][1] = h["model.norm.weight"]["data_offsets"][0];
  });
  e = load(f.dir / "wrap.safetensors");
  EXPECT_NE(e.find("model.norm.weight: shape too large: [4611686018427387904] is more than 2^64 bytes"), std::string::npos) << e;
  test::write_safetensors(f.dir / "int64.safetensors", f.tensors,
                          [](nlohmann::json& h) { h["model.norm.weight"]["shape"] = nlohmann::json::array({std::uint64_t{1} << 63}); });
  e = load(f.dir / "int64.safetensors");
  EXPECT_NE(e.find("model.norm.weight: shape too large"), std::string::npos) << e;

  test::write_safetensors(f.dir / "unknown.safetensors", f.tensors, [](nlohmann::json& h) { h["model.norm.weight"]["dtype"] = "F12"; });
  e = load(f.dir / "unknown.safetensors");
  EXPECT_NE(e.find("model.norm.weight: unknown dtype 'F12'"), std::string::npos) << e;

  // A key the format does not define in a tensor's entry was taken without a word.
  test::write_safetensors(f.dir / "extra.safetensors", f.tensors, [](nlohmann::json& h) { h["model.norm.weight"]["foo"] = 1; });
  e = load(f.dir / "extra.safetensors");
  EXPECT_NE(e.find("model.norm.weight: unknown key 'foo'"), std::string::npos) << e;

  {
    std::ofstream bad(f.dir / "short.safetensors", std::ios::binary);
    bad << "abc";
  }
  e = load(f.dir / "short.safetensors");
  EXPECT_NE(e.find("short.safetensors: not a safetensors file"), std::string::npos) << e;
  {
    std::ofstream bad(f.dir / "huge.safetensors", std::ios::binary);
    const char len[8] = {static_cast<char>(0xFF), static_cast<char>(0xFF), 0, 0, 0, 0, 0, 0};
    bad.write(len, 8);
    bad << "{}";
  }
  e = load(f.dir / "huge.safetensors");
  EXPECT_NE(e.find("header length 65535"), std::string::npos) << e;
  {
    std::ofstream bad(f.dir / "json.safetensors", std::ios::binary);
    const char len[8] = {5, 0, 0, 0, 0, 0, 0, 0};
    bad.write(len, 8);
    bad << "{abc}";
  }
  e = load(f.dir / "json.safetensors");
  EXPECT_NE(e.find("invalid JSON header"), std::string::npos) << e;
  // Two tensors over the same bytes: refused, naming both.
  test::write_safetensors(f.dir / "overlap.safetensors", f.tensors, [&](nlohmann::json& h) {
    h[q]["data_offsets"] = h["model.layers.1.self_attn.o_proj.weight"]["data_offsets"];
  });
  e = load(f.dir / "overlap.safetensors");
  EXPECT_NE(e.find("overlap tensor 'model.layers.1.self_attn.o_proj.weight'"), std::string::npos) << e;
  // Non-finite weights: refused when read, naming the element.
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
    auto nan = f.tensors;
    std::vector<float> v(64, 1.0f);
    v[5] = bad;
    nan["model.norm.weight"] = test::f32_tensor({64}, v);
    test::write_safetensors(f.dir / "nan.safetensors", nan);
    e = error_of([&] { SafetensorsFile(f.dir / "nan.safetensors").read("model.norm.weight"); });
    EXPECT_NE(e.find(std::string("model.norm.weight: ") + (std::isnan(bad) ? "NaN" : "infinite") + " value at [5]"), std::string::npos) << e;
  }
  e = load(f.dir / "does-not-exist.safetensors");
  EXPECT_NE(e.find("does-not-exist.safetensors: cannot open file"), std::string::npos) << e;
}

// The format's own rules: the data has no holes (bytes before, between or after the tensors),
// the metadata maps strings to strings, and a header past the format's 100 MB is named as such.
TEST(FunctionalSafetensors, HolesMetadataAndHeaderSizeFollowTheFormat) {
  Fixture f;
  const auto open = [&](const std::string& name) { return error_of([&] { SafetensorsFile file(f.dir / name); }); };
  test::write_safetensors(f.dir / "ok.safetensors", f.tensors);
  EXPECT_EQ(open("ok.safetensors"), "(no error)");
  const auto data_bytes = [&] {
    std::uint64_t n = 0;
    for (const auto& [name, t] : f.tensors) n += t.bytes.size();
    return n;
  }();
  std::filesystem::copy_file(f.dir / "ok.safetensors", f.dir / "trailing.safetensors");
  std::ofstream(f.dir / "trailing.safetensors", std::ios::binary | std::ios::app) << std::string(100, '\0');
  auto e = open("trailing.safetensors");
  EXPECT_NE(e.find("trailing.safetensors: bytes [" + std::to_string(data_bytes) + ", " + std::to_string(data_bytes + 100) +
                   ") of the data belong to no tensor"), std::string::npos) << e;
  // Every tensor moved 64 bytes on: the first 64 bytes are a hole.
  test::write_safetensors(f.dir / "gap.safetensors", f.tensors, [](nlohmann::json& h) {
    for (auto& [name, v] : h.items()) {
      if (name == "__metadata__") continue;
      v["data_offsets"][0] = v["data_offsets"][0].get<std::uint64_t>() + 64;
      v["data_offsets"][1] = v["data_offsets"][1].get<std::uint64_t>() + 64;
    }
  });
  std::ofstream(f.dir / "gap.safetensors", std::ios::binary | std::ios::app) << std::string(64, '\0');
  e = open("gap.safetensors");
  EXPECT_NE(e.find("bytes [0, 64) of the data belong to no tensor"), std::string::npos) << e;
  test::write_safetensors(f.dir / "meta.safetensors", f.tensors, [](nlohmann::json& h) { h["__metadata__"] = {{"format", 5}}; });
  e = open("meta.safetensors");
  EXPECT_NE(e.find("__metadata__: expected a map of strings to strings; 'format' is 5"), std::string::npos) << e;
  {
    // A header length past 100,000,000 in a file that holds that many bytes (sparse on disk).
    std::ofstream big(f.dir / "big.safetensors", std::ios::binary);
    const std::uint64_t n = 100'000'001;
    for (int i = 0; i < 8; ++i) big.put(static_cast<char>((n >> (8 * i)) & 0xFF));
    big.seekp(static_cast<std::streamoff>(8 + n));
    big.put('\0');
  }
  e = open("big.safetensors");
  EXPECT_NE(e.find("big.safetensors: a header of 100000001 bytes, more than the 100000000 a safetensors header may have"), std::string::npos) << e;
}

}  // namespace
}  // namespace socsim::functional
