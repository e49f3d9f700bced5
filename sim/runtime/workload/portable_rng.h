#pragma once
// Random numbers whose values socsim defines itself, so a workload seed gives the same lengths
// with every compiler and standard library. std::mt19937_64's output sequence is fixed by the
// C++ standard; std::uniform_int_distribution and std::normal_distribution are not (each library
// maps the engine's bits differently), so the mappings below are written out instead.
#include <cstdint>
#include <random>

namespace socsim::runtime {

class PortableRng {
 public:
  explicit PortableRng(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [0, n), n >= 1, without modulo bias.
  std::uint64_t below(std::uint64_t n);
  // Uniform in [0, 1) on the 2^53 grid of doubles.
  double unit();
  // Standard normal (mean 0, std 1) by Box-Muller.
  double standard_normal();

 private:
  std::mt19937_64 engine_;
};

}  // namespace socsim::runtime
