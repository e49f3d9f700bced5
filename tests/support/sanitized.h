#pragma once
// Whether this test binary is the sanitized build (scripts/test.sh's second build, ASan+UBSan at
// -O0): there a simulation runs some 60x slower than in Release (cpu-only qwen2-1.5b 256 + 256:
// 25 s against 0.43 s), so the heaviest tests repeat the same code paths fewer times. The memory
// and UB checks need each path once; the Release suite keeps every repetition.
namespace socsim::test {
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
}  // namespace socsim::test
