#include "sim/functional/safetensors_file.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <fstream>
#include <nlohmann/json.hpp>

#include "kernels/tensor/half.h"
#include "sim/config/config_error.h"
#include "sim/config/input_file.h"
#include "sim/config/unique_key_json.h"

namespace socsim::functional {

namespace {

// Bytes per element of every dtype the format defines (so any valid file's header checks out,
// even for tensors we never read).
std::uint64_t dtype_bytes(const std::string& d) {
  if (d == "BOOL" || d == "U8" || d == "I8" || d == "F8_E5M2" || d == "F8_E4M3") return 1;
  if (d == "I16" || d == "U16" || d == "F16" || d == "BF16") return 2;
  if (d == "I32" || d == "U32" || d == "F32") return 4;
  if (d == "I64" || d == "U64" || d == "F64") return 8;
  return 0;
}

bool convertible(const std::string& d) { return d == "F32" || d == "F16" || d == "BF16"; }

// The header may not be larger than this (the reference implementation's limit is 100 MB).
constexpr std::uint64_t kMaxHeader = 100'000'000;

}  // namespace

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void SafetensorsFile::fail(const std::string& tensor, const std::string& message) const {
  throw config::ConfigError({path_.string(), 0, 0}, tensor, message);
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : entries_) out.push_back(name);
  return out;
}

SafetensorsFile::SafetensorsFile(std::filesystem::path file) : path_(std::move(file)) {
  // Before opening: a FIFO without a writer blocks the open, a device has no size.
  if (const auto why = config::input_file_problem(path_, {"a safetensors file", 0, false})) fail("", "cannot read the file: it " + *why);
  std::ifstream in(path_, std::ios::binary);
  if (!in) fail("", "cannot open file" + config::errno_reason());
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path_, ec);
  if (ec) fail("", "cannot read the file size: " + ec.message());
  if (size < 8) fail("", "not a safetensors file: " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  unsigned char len_bytes[8];
  in.read(reinterpret_cast<char*>(len_bytes), 8);
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = header_len << 8 | len_bytes[i];  // little-endian
  if (header_len > size - 8) {
    fail("", "truncated or not a safetensors file: header length " + std::to_string(header_len) + " but the file has " +
                 std::to_string(size - 8) + " bytes after the length");
  }
  if (header_len > kMaxHeader) {
    fail("", "a header of " + std::to_string(header_len) + " bytes, more than the " + std::to_string(kMaxHeader) +
                 " a safetensors header may have (the format's own limit)");
  }
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  if (!in) fail("", "cannot read the header");
  data_start_ = 8 + header_len;
  const std::uint64_t data_size = size - data_start_;

  nlohmann::json j;
  try {
    j = config::parse_json_unique_keys(header);
  } catch (const config::DuplicateJsonKey& e) {  // two tensors of one name: which bytes are the weight?
    fail(e.key(), "header entry " + config::duplicate_key_message(e));
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers beyond double's range
    fail("", std::string("invalid JSON header: ") + e.what());
  }
  if (!j.is_object()) fail("", "the header is not a JSON object");
  for (const auto& [name, v] : j.items()) {
    if (name == "__metadata__") {
      // The format's metadata is a map of strings to strings ({"format": "pt"}).
      if (!v.is_object()) fail(name, "expected a map of strings to strings, got " + v.dump());
      for (const auto& [key, value] : v.items()) {
        if (!value.is_string()) fail(name, "expected a map of strings to strings; '" + key + "' is " + value.dump());
      }
      continue;
    }
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets")) {
      fail(name, "header entry must be an object with dtype, shape and data_offsets");
    }
    // The format defines those three keys only: another is a writer's error, or not this format.
    for (const auto& [key, value] : v.items()) {
      if (key != "dtype" && key != "shape" && key != "data_offsets") fail(name, "unknown key '" + key + "' (a tensor's entry holds dtype, shape and data_offsets)");
    }
    Entry e;
    if (!v["dtype"].is_string()) fail(name, "dtype must be a string");
    e.dtype = v["dtype"].get<std::string>();
    const std::uint64_t eb = dtype_bytes(e.dtype);
    if (eb == 0) fail(name, "unknown dtype '" + e.dtype + "'");
    if (!v["shape"].is_array()) fail(name, "shape must be an array");
    std::uint64_t numel = 1;
    for (const auto& d : v["shape"]) {
      if (!d.is_number_unsigned()) fail(name, "shape entries must be non-negative integers");
      if (d.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) fail(name, "shape too large");
      e.shape.push_back(d.get<std::int64_t>());
      if (__builtin_mul_overflow(numel, d.get<std::uint64_t>(), &numel)) fail(name, "shape too large");
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
      fail(name, "data_offsets must be [begin, end] with non-negative integers");
    }
    e.begin = off[0].get<std::uint64_t>();
    e.end = off[1].get<std::uint64_t>();
    if (e.end < e.begin) fail(name, "data_offsets end before they begin");
    // The byte count too: [4611686018427387904] F32 is 2^64 bytes, which wrapped to 0.
    std::uint64_t nbytes = 0;
    if (__builtin_mul_overflow(numel, eb, &nbytes)) fail(name, "shape too large: " + shape_string(e.shape) + " is more than 2^64 bytes");
    if (e.end - e.begin != nbytes) {
      fail(name, "data_offsets span " + std::to_string(e.end - e.begin) + " bytes but " + e.dtype + " " +
                     shape_string(e.shape) + " needs " + std::to_string(numel * eb));
    }
    if (e.end > data_size) {
      fail(name, "truncated file: the tensor's data ends at byte " + std::to_string(data_start_ + e.end) +
                     " but the file has " + std::to_string(size));
    }
    entries_.emplace(name, std::move(e));
  }
  // Tensors whose bytes overlap would alias each other's weights: a damaged or crafted file.
  std::vector<std::pair<const std::string*, const Entry*>> by_offset;
  for (const auto& [name, e] : entries_) {
    if (e.end > e.begin) by_offset.push_back({&name, &e});
  }
  std::sort(by_offset.begin(), by_offset.end(), [](const auto& a, const auto& b) {
    return a.second->begin != b.second->begin ? a.second->begin < b.second->begin : *a.first < *b.first;
  });
  // Bytes that no tensor covers are refused as the format refuses them (its buffer "needs to be
  // entirely indexed, and cannot contain holes": data hidden there would go unread).
  const auto hole = [&](std::uint64_t from, std::uint64_t to) {
    fail("", "bytes [" + std::to_string(from) + ", " + std::to_string(to) + ") of the data belong to no tensor (a safetensors file's data " +
                 "has no holes: a damaged or crafted file)");
  };
  std::uint64_t covered = 0;
  for (std::size_t i = 0; i < by_offset.size(); ++i) {
    const auto& [name, e] = by_offset[i];
    if (i > 0 && e->begin < by_offset[i - 1].second->end) {
      const auto& [prev_name, prev] = by_offset[i - 1];
      fail(*name, "data_offsets [" + std::to_string(e->begin) + ", " + std::to_string(e->end) + ") overlap tensor '" + *prev_name + "' [" +
                      std::to_string(prev->begin) + ", " + std::to_string(prev->end) + ")");
    }
    if (e->begin > covered) hole(covered, e->begin);
    covered = e->end;
  }
  if (covered < data_size) hole(covered, data_size);
}

const SafetensorsFile::Entry& SafetensorsFile::entry(const std::string& name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) fail(name, "tensor missing from the file");
  return it->second;
}

void SafetensorsFile::require(const std::string& name, const std::vector<std::int64_t>& shape) const {
  const Entry& e = entry(name);
  if (e.shape != shape) fail(name, "wrong shape " + shape_string(e.shape) + ", expected " + shape_string(shape));
  if (!convertible(e.dtype)) fail(name, "unsupported dtype " + e.dtype + " (expected F32, F16 or BF16)");
}

std::vector<float> SafetensorsFile::read_rows(const std::string& name, std::uint64_t row0, std::uint64_t rows) const {
  const Entry& e = entry(name);
  if (!convertible(e.dtype)) fail(name, "unsupported dtype " + e.dtype + " (expected F32, F16 or BF16)");
  std::uint64_t row_elems = 1;
  for (std::size_t i = 1; i < e.shape.size(); ++i) row_elems *= static_cast<std::uint64_t>(e.shape[i]);
  const std::uint64_t total_rows = e.shape.empty() ? 1 : static_cast<std::uint64_t>(e.shape[0]);
  if (row0 + rows > total_rows) fail(name, "rows [" + std::to_string(row0) + ", " + std::to_string(row0 + rows) + ") outside the tensor");
  const std::uint64_t eb = dtype_bytes(e.dtype), n = rows * row_elems;
  std::vector<unsigned char> raw(n * eb);
  std::ifstream in(path_, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(data_start_ + e.begin + row0 * row_elems * eb));
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (!in) fail(name, "cannot read the tensor's data (file changed or truncated while reading?)");
  std::vector<float> out(n);
  // Little-endian on disk, assembled byte by byte so the host's byte order does not matter.
  const unsigned char* b = raw.data();
  if (e.dtype == "F32") {
    for (std::uint64_t i = 0; i < n; ++i, b += 4) {
      out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(b[0] | b[1] << 8 | b[2] << 16) | static_cast<std::uint32_t>(b[3]) << 24);
    }
  } else if (e.dtype == "F16") {
    for (std::uint64_t i = 0; i < n; ++i, b += 2) {
      out[i] = kernels::float_from_half_bits(static_cast<std::uint16_t>(b[0] | b[1] << 8));
    }
  } else {  // BF16: the top half of an FP32
    for (std::uint64_t i = 0; i < n; ++i, b += 2) out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(b[0] | b[1] << 8) << 16);
  }
  // A NaN or infinite weight poisons every result it touches and would make the accuracy
  // comparison meaningless (NaN == NaN nowhere, argmax of NaN logits arbitrary): bad input.
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!std::isfinite(out[i])) {
      const std::uint64_t row = row0 + i / row_elems, col = i % row_elems;
      fail(name, std::string(std::isnan(out[i]) ? "NaN" : "infinite") + " value at [" + std::to_string(row) +
                     (e.shape.size() > 1 ? ", " + std::to_string(col) : std::string()) + "] (flat element " +
                     std::to_string(row * row_elems + col) + "): a checkpoint's weights must be finite");
    }
  }
  return out;
}

std::vector<float> SafetensorsFile::read(const std::string& name) const {
  const Entry& e = entry(name);
  return read_rows(name, 0, e.shape.empty() ? 1 : static_cast<std::uint64_t>(e.shape[0]));
}

}  // namespace socsim::functional
