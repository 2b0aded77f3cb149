// min_cost_path_avx512.cpp - the AVX-512 path of min_cost_path.hpp (16 lengths at a
// time).  Compiled with -mavx512f (CMakeLists.txt); called only when the CPU has it.
// gcc 12 warns of an uninitialised vector inside its own unmasked AVX-512 intrinsics
// (_mm512_undefined_epi32 as the pass-through operand): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "core/min_cost_path_keyed.hpp"

namespace flowdeflate::core {
namespace {

struct Avx512 {
    static constexpr u32 kLanes = 16;
    using T = __m512i;
    static T load(const u32* p) { return _mm512_loadu_si512(p); }
    static T blend_from(T v, T x, u32 n) {  // lanes n.. take x (n < kLanes)
        return _mm512_mask_mov_epi32(v, __mmask16(0xFFFFu << n), x);
    }
    static T shift_in(T v, u32 x) {  // x into lane 0, the others up one
        return _mm512_alignr_epi32(v, _mm512_set1_epi32(int(x)), 15);
    }
    static T min_first(T best, T key, u32 n) {
        return _mm512_mask_min_epu32(best, __mmask16(n >= kLanes ? 0xFFFF : (1u << n) - 1), best, key);
    }
    static T set1(u32 x) { return _mm512_set1_epi32(int(x)); }
    static T add(T a, T b) { return _mm512_add_epi32(a, b); }
    static T min(T a, T b) { return _mm512_min_epu32(a, b); }
    static T shl9(T a) { return _mm512_slli_epi32(a, kItemOffsetShift); }
    static u32 hmin(T v) {  // (not _mm512_reduce_min_epu32: gcc 12 warns inside it)
        const __m256i y = _mm256_min_epu32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
        return min_of_lanes(_mm_min_epu32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1)));
    }
};

}  // namespace

void min_cost_path_avx512(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes) {
    keyed_min_cost_path<Avx512>(part, costs, offset_slot, nodes);
}

}  // namespace flowdeflate::core
