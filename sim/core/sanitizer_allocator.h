#pragma once
// Whether this build's malloc and new are a sanitizer's (ASan, MSan): code that manages memory
// itself (frame pools, the heap's reserve) stands aside so the sanitizer sees every block.
namespace socsim {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kSanitizerAllocator = true;
#else
inline constexpr bool kSanitizerAllocator = false;
#endif
#else
inline constexpr bool kSanitizerAllocator = false;
#endif

}  // namespace socsim
