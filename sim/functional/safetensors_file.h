#pragma once
// Reader of the safetensors format (huggingface/safetensors): an 8-byte little-endian header
// length N, N bytes of JSON mapping each tensor name to {dtype, shape, data_offsets: [begin, end]}
// (byte offsets into the data that follows the header; "__metadata__" holds free-form strings),
// then the raw little-endian data. The whole header is validated when the file is opened (sizes,
// offsets inside the file, byte counts matching dtype x shape), so a bad file fails before any
// computation; tensors are read on demand, converted to FP32 from F32, F16 or BF16.
//
// Every error is config::ConfigError (exit 2) at the file, keyed by the tensor's name.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace socsim::functional {

class SafetensorsFile {
 public:
  struct Entry {
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;  // relative to the data section
  };

  explicit SafetensorsFile(std::filesystem::path file);

  const std::filesystem::path& path() const { return path_; }
  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  // Tensor names, sorted.
  std::vector<std::string> names() const;
  // The entry, or an error naming the tensor as missing.
  const Entry& entry(const std::string& name) const;
  // Checks the tensor exists, has `shape` and a dtype read_rows can convert.
  void require(const std::string& name, const std::vector<std::int64_t>& shape) const;
  // Rows [row0, row0 + rows) of the tensor (its first dimension; a 1-D tensor is one row) as FP32.
  std::vector<float> read_rows(const std::string& name, std::uint64_t row0, std::uint64_t rows) const;
  std::vector<float> read(const std::string& name) const;

 private:
  [[noreturn]] void fail(const std::string& tensor, const std::string& message) const;

  std::filesystem::path path_;
  std::uint64_t data_start_ = 0;
  std::map<std::string, Entry> entries_;
};

// "[a, b, c]" for messages.
std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace socsim::functional
