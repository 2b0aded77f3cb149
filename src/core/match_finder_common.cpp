// match_finder_common.cpp - the match finders' table passes, compiled for AVX-512,
// AVX2 and the baseline (SSE2 on x86-64), the CPU's best chosen when the library loads
// (GCC/Clang target_clones).  libdeflate as Debian builds it (no -mavx2) runs these with
// SSE2; the result is the same entries either way.
#include "core/match_finder_common.hpp"

namespace flowdeflate::core {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define FLOWDEFLATE_TABLE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define FLOWDEFLATE_TABLE_CLONES
#endif

FLOWDEFLATE_TABLE_CLONES void mf_init(MfPos* data, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) data[i] = kMfInitVal;
}

// x - 32768 saturated: for x >= 0 that is 0x8000 | x, for x < 0 it is 0x8000.  Written
// without intrinsics so that each clone vectorises it at its own width.
FLOWDEFLATE_TABLE_CLONES void mf_rebase(MfPos* data, std::size_t count) {
    auto* d = reinterpret_cast<u16*>(data);
    for (std::size_t i = 0; i < count; ++i) {
        const u16 x = d[i];
        d[i] = u16(0x8000 | (x & ~u16(s16(x) >> 15)));
    }
}

}  // namespace flowdeflate::core
