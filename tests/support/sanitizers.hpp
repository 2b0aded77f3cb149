// sanitizers.hpp - FLOWDEFLATE_SANITIZED is 1 in a build with AddressSanitizer,
// ThreadSanitizer, MemorySanitizer or HWASan, else 0.  gcc says so with __SANITIZE_*__,
// clang only through __has_feature; tests that measure memory or limit the address space
// skip themselves there (shadow memory and ASan's quarantine).
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FLOWDEFLATE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer) || __has_feature(hwaddress_sanitizer)
#define FLOWDEFLATE_SANITIZED 1
#endif
#endif
#ifndef FLOWDEFLATE_SANITIZED
#define FLOWDEFLATE_SANITIZED 0
#endif
