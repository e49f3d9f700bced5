// A safetensors file as `run --mode functional --weights FILE` reads it: the header is validated
// when opened, then every tensor is read (the reader takes a path, so the input goes to a file).
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/config/config_error.h"
#include "sim/functional/safetensors_file.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("socsim_fuzz_" + std::to_string(::getpid()) + ".safetensors");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const socsim::functional::SafetensorsFile st(file);
    for (const auto& name : st.names()) (void)st.read(name);
  } catch (const socsim::config::ConfigError&) {
  }
  return 0;
}
