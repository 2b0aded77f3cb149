// min_cost_path_keyed.hpp - the vector paths of min_cost_path.hpp (AVX2: 8 lengths at a
// time, AVX-512: 16), one template over the instruction set's operations.  Internal
// linkage: each path's source is compiled for its own instruction set, so no copy may be
// shared between them.
//
// Each candidate becomes one 32-bit key, (cost - base) << 9 | length, so that one unsigned
// minimum picks the cheapest candidate and, among equal costs, the shortest length: the
// scalar loop's choice (it takes a candidate only when it is strictly cheaper).  The base
// is cost(i + 1) - 257 * max literal cost: every real candidate's cost lies within
// [base, base + offset cost + length cost + 514 * max literal cost] (keyed_costs_fit()),
// so the difference fits in 22 bits.  Candidates that run past the block's end
// (cost_to_end 0x80000000) are clamped to 2^22, above every real candidate; lanes past a
// match's longest length are masked out.  Each match is scanned over its own lengths with
// its own offset cost broadcast (no row of offset costs stored and reloaded: a load that
// spans several earlier vector stores cannot be forwarded and stalls).
#pragma once

#include <immintrin.h>

#include "core/min_cost_path.hpp"
#include "core/min_cost_path_walk.hpp"

namespace flowdeflate::core {
namespace {

// The smallest of four u32 lanes (the last step of both paths' V::hmin).
[[gnu::always_inline]] inline u32 min_of_lanes(__m128i x) {
    x = _mm_min_epu32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_min_epu32(x, _mm_shuffle_epi32(x, 0xB1));
    return u32(_mm_cvtsi128_si32(x));
}

// Below this longest length the scalar loop is faster (measured: min_cost_path.hpp).
inline constexpr u32 kVectorFrom = 11;

// V: kLanes, the vector type T, load/set1/add/min/shl9/hmin over u32 lanes, and
// min_first(best, key, n): the lane-wise minimum over the first n lanes of key (n may
// exceed kLanes), the rest of best unchanged.
template <class V>
[[gnu::always_inline]] inline void scan_lengths_keyed(const LzMatch* matches, const LzMatch* end, u32 i,
                                                      const NearOptimalCosts& costs, const u8* offset_slot,
                                                      const u32* cost, const u32* length_key, u32 bias,
                                                      u32& best_cost, u32& best_item) {
    if (end[-1].length < kVectorFrom) {
        scan_lengths(matches, end, i, costs, offset_slot, cost, best_cost, best_item);
        return;
    }
    const u32 base = cost[i + 1] - bias;  // (mod 2^32: the differences are what count)
    const typename V::T clamp = V::set1(kKeyClamp);
    typename V::T best = V::set1(~0u);
    // Each match over its own lengths (those a shorter match does not offer): its offset
    // cost, kLanes lengths at a time, the lanes past its longest length left out.
    u32 len = kMinMatchLen;
    for (const LzMatch* m = matches; m != end; ++m) {
        const typename V::T oc = V::set1(costs.offset_slot[offset_slot[m->offset]] - base);
        const u32 last = m->length;
        for (u32 l = len; l <= last; l += V::kLanes) {
            const typename V::T c = V::min(V::add(oc, V::load(&cost[i + l])), clamp);
            best = V::min_first(best, V::add(V::shl9(c), V::load(&length_key[l])), last - l + 1);
        }
        len = last + 1;
    }
    const u32 key = V::hmin(best);
    if (key >= kKeyClamp << kItemOffsetShift) return;  // every length runs past the block
    const u32 match_cost = (key >> kItemOffsetShift) + base;
    if (match_cost < best_cost) {
        const u32 win_len = key & kItemLenMask;
        const LzMatch* m = matches;
        while (m->length < win_len) ++m;
        best_cost = match_cost;
        best_item = win_len | (u32(m->offset) << kItemOffsetShift);
    }
}

template <class V>
[[gnu::always_inline]] inline void keyed_min_cost_path(u32 block_length, const LzMatch* cache_end,
                                                       const NearOptimalCosts& costs, const u8* offset_slot,
                                                       PathNodes nodes) {
    if (!keyed_costs_fit(costs)) {
        min_cost_path_scalar(block_length, cache_end, costs, offset_slot, nodes);
        return;
    }
    // Length cost << 9 | length (the lanes past kMaxMatchLen are masked out).
    alignas(64) u32 length_key[kMaxMatchLen + 1 + V::kLanes] = {};
    for (u32 l = kMinMatchLen; l <= kMaxMatchLen; ++l) length_key[l] = (costs.length[l] << kItemOffsetShift) | l;
    const u32 bias = (kMaxMatchLen - 1) * max_literal_cost(costs);
    walk_block(block_length, cache_end, costs, nodes,
               [&](const LzMatch* matches, const LzMatch* end, u32 i, u32& best_cost, u32& best_item)
                   __attribute__((always_inline)) {
                   scan_lengths_keyed<V>(matches, end, i, costs, offset_slot, nodes.cost_to_end, length_key, bias,
                                         best_cost, best_item);
               });
}

}  // namespace
}  // namespace flowdeflate::core
