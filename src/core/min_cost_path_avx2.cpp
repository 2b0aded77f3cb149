// min_cost_path_avx2.cpp - the AVX2 path of min_cost_path.hpp.  Compiled with -mavx2
// (CMakeLists.txt); called only when the CPU has AVX2 (min_cost_path_uses_avx2()).
#include <immintrin.h>

#include "core/min_cost_path.hpp"
#include "core/min_cost_path_walk.hpp"

namespace flowdeflate::core {
namespace {

inline u32 min_lane(__m256i v) {
    __m128i x = _mm_min_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_min_epu32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_min_epu32(x, _mm_shuffle_epi32(x, 0xB1));
    return u32(_mm_cvtsi128_si32(x));
}

// Below this longest length (one vector of lengths) the scalar loop is faster: best of 5
// runs, user time, 8 MB of libLLVM.so / packages.txt, --sequential: vector from 3:
// L10 1.00 / 0.82 s, L12 1.64 / 1.56 s; from 11: 0.89 / 0.73, 1.41 / 1.38; from 19:
// 0.88 / 0.77, 1.47 / 1.51; scalar only: 0.91 / 0.77, 1.77 / 2.07.
constexpr u32 kVectorFrom = 11;

// One position's matches, 8 lengths at a time.
[[gnu::always_inline]] inline void scan_lengths_avx2(const LzMatch* matches, const LzMatch* end, u32 i,
                                                     const NearOptimalCosts& costs, const u8* offset_slot,
                                                     const u32* cost, u32& best_cost, u32& best_item) {
    const u32 longest = end[-1].length;
    if (longest < kVectorFrom) {
        scan_lengths(matches, end, i, costs, offset_slot, cost, best_cost, best_item);
        return;
    }
    // Offset cost by length; written 8 at a time, so 8 past the longest length.
    alignas(32) u32 offset_cost_by_len[kMaxMatchLen + 1 + NearOptimalCosts::kPad];
    u32 len = kMinMatchLen;
    for (const LzMatch* m = matches; m != end; ++m) {
        const __m256i oc = _mm256_set1_epi32(int(costs.offset_slot[offset_slot[m->offset]]));
        for (u32 l = len; l <= m->length; l += 8)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(&offset_cost_by_len[l]), oc);
        len = u32(m->length) + 1;
    }
    const __m256i all_ones = _mm256_set1_epi32(-1);
    const __m256i limit = _mm256_set1_epi32(int(longest + 1));
    __m256i best = all_ones;
    __m256i best_len = _mm256_setzero_si256();
    __m256i lanes = _mm256_setr_epi32(3, 4, 5, 6, 7, 8, 9, 10);
    for (u32 l = kMinMatchLen; l <= longest; l += 8) {
        __m256i c = _mm256_add_epi32(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&offset_cost_by_len[l])),
            _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(&costs.length[l])),
                             _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&cost[i + l]))));
        // Lengths past the longest cost "never".
        c = _mm256_or_si256(c, _mm256_andnot_si256(_mm256_cmpgt_epi32(limit, lanes), all_ones));
        const __m256i lower = _mm256_min_epu32(c, best);
        // Where nothing got cheaper (a tie included), the earlier length stays.
        best_len = _mm256_blendv_epi8(lanes, best_len, _mm256_cmpeq_epi32(lower, best));
        best = lower;
        lanes = _mm256_add_epi32(lanes, _mm256_set1_epi32(8));
    }
    const u32 match_cost = min_lane(best);
    if (match_cost < best_cost) {
        const __m256i at_min = _mm256_cmpeq_epi32(best, _mm256_set1_epi32(int(match_cost)));
        const u32 win_len = min_lane(_mm256_blendv_epi8(all_ones, best_len, at_min));
        const LzMatch* m = matches;
        while (m->length < win_len) ++m;
        best_cost = match_cost;
        best_item = win_len | (u32(m->offset) << kItemOffsetShift);
    }
}

}  // namespace

void min_cost_path_avx2(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                        const u8* offset_slot, PathNodes nodes) {
    walk_block(block_length, cache_end, costs, nodes,
               [&](const LzMatch* matches, const LzMatch* end, u32 i, u32& best_cost, u32& best_item)
                   __attribute__((always_inline)) {
                   scan_lengths_avx2(matches, end, i, costs, offset_slot, nodes.cost_to_end, best_cost, best_item);
               });
}

}  // namespace flowdeflate::core
