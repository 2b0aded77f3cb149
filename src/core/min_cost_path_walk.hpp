// min_cost_path_walk.hpp - the scalar loops of min_cost_path.hpp: the walk backwards over
// the block, and the scan of one position's lengths (libdeflate's loop; the vector paths
// take it too when the longest match is short).  Internal linkage: the vector paths'
// sources are compiled for their own instruction sets (min_cost_path_avx2.cpp with
// -mavx2), so no copy may be shared between them.
#pragma once

#include "core/min_cost_path.hpp"

namespace flowdeflate::core {
namespace {

// The candidates of one position with matches, in order (the scalar loop's body).
[[gnu::always_inline]] inline void scan_lengths(const LzMatch* match, const LzMatch* end, u32 i,
                                                const NearOptimalCosts& costs, const u8* offset_slot,
                                                const u32* cost, u32& best_cost, u32& best_item) {
    u32 len = kMinMatchLen;
    do {
        const u32 offset = match->offset;
        const u32 offset_cost = costs.offset_slot[offset_slot[offset]];
        do {
            // Branch-free: which length wins is data-dependent and unpredictable.
            const u32 c = offset_cost + costs.length[len] + cost[i + len];
            const bool better = c < best_cost;
            best_cost = better ? c : best_cost;
            best_item = better ? (len | (offset << kItemOffsetShift)) : best_item;
        } while (++len <= match->length);
    } while (++match != end);
}

// Backwards over the part: the literal, then @p scan_matches(matches, end, i, best_cost,
// best_item) for a position with matches.
template <class ScanMatches>
[[gnu::always_inline]] inline void walk_block(PathPart part, const NearOptimalCosts& costs, PathNodes nodes,
                                              ScanMatches&& scan_matches) {
    // Positions from the part's start, counting down to 0 (min_cost_path_keyed.hpp).
    u32* const cost = nodes.cost_to_end + part.begin;
    u32* const items = nodes.items + part.begin;
    const LzMatch* cache_ptr = part.cache_end;
    for (u32 i = part.end - part.begin; i-- > 0;) {
        cache_ptr--;
        const u32 num_matches = cache_ptr->length;
        const u32 literal = cache_ptr->offset;
        u32 best_cost = costs.literal[literal] + cost[i + 1];
        u32 best_item = (literal << kItemOffsetShift) | 1;  // kept in a register
        if (num_matches) {
            scan_matches(cache_ptr - num_matches, cache_ptr, i, best_cost, best_item);
            cache_ptr -= num_matches;
        }
        cost[i] = best_cost;
        items[i] = best_item;
    }
}

}  // namespace
}  // namespace flowdeflate::core
