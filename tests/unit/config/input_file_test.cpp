// input_file_problem: the shared check every reader of a named input makes before reading it.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/config/input_file.h"

namespace socsim::config {
namespace {

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("socsim_input_file_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(InputFile, SaysWhatIsWrongOrNothing) {
  const auto dir = scratch("kinds");
  const auto file = dir / "a.yaml";
  std::ofstream(file) << std::string(3 << 20, 'x');
  EXPECT_FALSE(input_file_problem(file, {"a configuration", 4 << 20, false}));
  EXPECT_EQ(*input_file_problem(file, {"a configuration", 2 << 20, false}), "is 3 MiB, more than the 2 MiB a configuration may have");
  EXPECT_FALSE(input_file_problem(file, {"a configuration", 0, false}));  // no cap
  EXPECT_EQ(*input_file_problem(dir, {"a sweep journal", 0, false}), "is a folder, not a sweep journal");
  EXPECT_FALSE(input_file_problem(dir / "missing", {"a sweep journal", 0, false}));  // the reader says "cannot open"
  const auto fifo = dir / "f";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(*input_file_problem(fifo, {"a sweep journal", 0, false}), "is not a regular file (a FIFO, device or socket), not a sweep journal");
  EXPECT_FALSE(input_file_problem(fifo, {"a trace file", 0, true}));  // a reader of pipes takes it
  EXPECT_EQ(*input_file_problem("/dev/zero", {"a trace file", 0, true}), "is a device or socket, not a trace file (a pipe or FIFO is read as one)");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace socsim::config
