// min_cost_path_keyed.hpp - the vector paths of min_cost_path.hpp (AVX2: 8 lengths at a
// time, AVX-512: 16), one template over the instruction set's operations.  Internal
// linkage: each path's source is compiled for its own instruction set, so no copy may be
// shared between them.
//
// Each candidate becomes one 32-bit key, (cost - base) << 9 | length, so that one unsigned
// minimum picks the cheapest candidate and, among equal costs, the shortest length: the
// scalar loop's choice (it takes a candidate only when it is strictly cheaper).  The base
// is cost(i + 3) - 257 * max literal cost: every real candidate's cost lies within
// [base, base + offset cost + length cost + 514 * max literal cost] (keyed_costs_fit()),
// so the difference fits in 22 bits.  Candidates that run past the block's end
// (cost_to_end 0x80000000) are clamped to 2^22, above every real candidate; lanes past a
// match's longest length are masked out.
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

// Below this longest length the scalar loop takes the position (measured: min_cost_path.hpp).
inline constexpr u32 kVectorFrom = 11;

// V: kLanes, the vector type T, load/set1/add/min/shl9/hmin over u32 lanes;
// blend_from(v, x, n): lanes n.. of x, the others of v (n < kLanes); shift_in(v, x): x in
// lane 0, lane k of v in lane k + 1; min_first(best, key, n): the lane-wise minimum over
// the first n lanes of key (n may exceed kLanes), the rest of best unchanged.
//
// The newest costs stay in a register: the window holds cost(i + 3) .. cost(i + 2 +
// kLanes) for the position i being computed (shifted along as each position's cost is
// found), so the first kLanes lengths are never loaded from the entries just stored (a
// vector load over recent scalar stores is not forwarded and waits for them).  Their
// offset costs are blended in a register, match by match; longer lengths are loaded,
// kLanes at a time, per match (over their own lengths).  The base is cost(i + 3) - bias
// (any cost of the candidates' window bounds them alike); a position less than 3 bytes
// from the block's end has no candidate inside it.
template <class V>
[[gnu::always_inline]] inline void keyed_min_cost_path(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot,
                                                       PathNodes nodes) {
    if (!keyed_costs_fit(costs)) {
        min_cost_path_scalar(part, costs, offset_slot, nodes);
        return;
    }
    alignas(64) u32 length_key[kMaxMatchLen + 1 + V::kLanes] = {};
    for (u32 l = kMinMatchLen; l <= kMaxMatchLen; ++l) length_key[l] = (costs.length[l] << kItemOffsetShift) | l;
    const u32 bias = (kMaxMatchLen - 1) * max_literal_cost(costs);
    const typename V::T clamp = V::set1(kKeyClamp);
    const typename V::T first_keys = V::load(&length_key[kMinMatchLen]);
    constexpr u32 kFirstPast = kMinMatchLen + V::kLanes;  // the first length past the window
    // Positions from the part's start: the loop counts down to 0, as over a whole block
    // (a loop bound in a register cost this loop ~10% in registers spilled).
    u32* const cost = nodes.cost_to_end + part.begin;
    u32* const items = nodes.items + part.begin;
    const LzMatch* cache_ptr = part.cache_end;
    const u32 block_length = part.block_length - part.begin;
    const u32 length = part.end - part.begin;
    // At the block's end, position block_length - 1: its candidates all lie past the end
    // (0x80000000).
    typename V::T window = V::load(&cost[length + 2]);
    u32 c1 = cost[length], c2 = cost[length + 1], c3 = cost[length + 2];  // cost(i + 1), (i + 2), (i + 3)
    for (u32 i = length; i-- > 0;) {
        cache_ptr--;
        const u32 num_matches = cache_ptr->length;
        const u32 literal = cache_ptr->offset;
        u32 best_cost = costs.literal[literal] + c1;
        u32 best_item = (literal << kItemOffsetShift) | 1;
        if (num_matches) {
            const LzMatch* const matches = cache_ptr - num_matches;
            const LzMatch* const end = cache_ptr;
            cache_ptr = matches;
            if (end[-1].length < kVectorFrom) {
                scan_lengths(matches, end, i, costs, offset_slot, cost, best_cost, best_item);
            } else if (i + kMinMatchLen <= block_length) {
                const u32 base = c3 - bias;  // (mod 2^32: the differences are what count)
                const u32 longest = end[-1].length;
                // The first kLanes lengths: offset costs blended match by match.
                typename V::T oc = V::set1(0);
                u32 len = kMinMatchLen;
                const LzMatch* m = matches;
                for (; m != end && len < kFirstPast; len = u32(m->length) + 1, ++m)
                    oc = V::blend_from(oc, V::set1(costs.offset_slot[offset_slot[m->offset]] - base),
                                       len - kMinMatchLen);
                typename V::T best = V::min_first(
                    V::set1(~0u), V::add(V::shl9(V::min(V::add(oc, window), clamp)), first_keys), longest - 2);
                // The longer lengths: the match that reaches past the window first (from
                // kFirstPast), then the rest, each over its own lengths.
                if (longest >= kFirstPast) {
                    if (len > kFirstPast) {
                        --m;
                        len = kFirstPast;
                    }
                    for (; m != end; ++m) {
                        const typename V::T moc = V::set1(costs.offset_slot[offset_slot[m->offset]] - base);
                        const u32 last = m->length;
                        for (u32 l = len; l <= last; l += V::kLanes) {
                            const typename V::T c = V::min(V::add(moc, V::load(&cost[i + l])), clamp);
                            best = V::min_first(best, V::add(V::shl9(c), V::load(&length_key[l])), last - l + 1);
                        }
                        len = last + 1;
                    }
                }
                const u32 key = V::hmin(best);
                if (key < (kKeyClamp << kItemOffsetShift)) {
                    const u32 match_cost = (key >> kItemOffsetShift) + base;
                    if (match_cost < best_cost) {
                        const u32 win_len = key & kItemLenMask;
                        const LzMatch* w = matches;
                        while (w->length < win_len) ++w;
                        best_cost = match_cost;
                        best_item = win_len | (u32(w->offset) << kItemOffsetShift);
                    }
                }
            }
        }
        cost[i] = best_cost;
        items[i] = best_item;
        window = V::shift_in(window, c2);
        c3 = c2;
        c2 = c1;
        c1 = best_cost;
    }
}

}  // namespace
}  // namespace flowdeflate::core
