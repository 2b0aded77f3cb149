// min_cost_path_avx2.cpp - the AVX2 path of min_cost_path.hpp (8 lengths at a time).
// Compiled with -mavx2 (CMakeLists.txt); called only when the CPU has AVX2.
#include <algorithm>

#include "core/min_cost_path_keyed.hpp"

namespace flowdeflate::core {
namespace {

struct Avx2 {
    static constexpr u32 kLanes = 8;
    using T = __m256i;
    static T load(const u32* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    static T lanes_from(u32 n) {  // all ones in lanes n.. (n <= kLanes), zero below
        return _mm256_cmpgt_epi32(_mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8), set1(n));
    }
    static T blend_from(T v, T x, u32 n) {  // lanes n.. take x (n < kLanes)
        return _mm256_blendv_epi8(v, x, lanes_from(n));
    }
    static T shift_in(T v, u32 x) {  // x into lane 0, the others up one
        const T up = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6));
        return _mm256_blend_epi32(up, set1(x), 1);
    }
    static T min_first(T best, T key, u32 n) {
        // Lanes at or past n: all ones, which min() never takes.
        return _mm256_min_epu32(best, _mm256_or_si256(key, lanes_from(std::min(n, kLanes))));
    }
    static T set1(u32 x) { return _mm256_set1_epi32(int(x)); }
    static T add(T a, T b) { return _mm256_add_epi32(a, b); }
    static T min(T a, T b) { return _mm256_min_epu32(a, b); }
    static T shl9(T a) { return _mm256_slli_epi32(a, kItemOffsetShift); }
    static u32 hmin(T v) {
        return min_of_lanes(_mm_min_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
    }
};

}  // namespace

void min_cost_path_avx2(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes) {
    keyed_min_cost_path<Avx2>(part, costs, offset_slot, nodes);
}

}  // namespace flowdeflate::core
