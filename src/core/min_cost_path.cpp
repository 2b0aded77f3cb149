// min_cost_path.cpp - see min_cost_path.hpp.  The vector path: min_cost_path_avx2.cpp.
#include "core/min_cost_path.hpp"

#include <cstdlib>

#include "core/min_cost_path_walk.hpp"

namespace flowdeflate::core {

void min_cost_path_scalar(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                          const u8* offset_slot, PathNodes nodes) {
    walk_block(block_length, cache_end, costs, nodes,
               [&](const LzMatch* matches, const LzMatch* end, u32 i, u32& best_cost, u32& best_item)
                   __attribute__((always_inline)) {
                   scan_lengths(matches, end, i, costs, offset_slot, nodes.cost_to_end, best_cost, best_item);
               });
}

bool min_cost_path_uses_avx2() {
    static const bool avx2 = __builtin_cpu_supports("avx2") && std::getenv("FLOWDEFLATE_NO_SIMD") == nullptr;
    return avx2;
}

void min_cost_path(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs, const u8* offset_slot,
                   PathNodes nodes) {
    if (min_cost_path_uses_avx2())
        min_cost_path_avx2(block_length, cache_end, costs, offset_slot, nodes);
    else
        min_cost_path_scalar(block_length, cache_end, costs, offset_slot, nodes);
}

}  // namespace flowdeflate::core
