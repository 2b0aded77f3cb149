// min_cost_path.cpp - see min_cost_path.hpp.  The vector paths: min_cost_path_keyed.hpp,
// instantiated in min_cost_path_avx2.cpp and min_cost_path_avx512.cpp.
#include "core/min_cost_path.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/min_cost_path_walk.hpp"

namespace flowdeflate::core {

void min_cost_path_scalar(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes) {
    walk_block(part, costs, nodes,
               [&](const LzMatch* matches, const LzMatch* end, u32 i, u32& best_cost, u32& best_item)
                   __attribute__((always_inline)) {
                   scan_lengths(matches, end, i, costs, offset_slot, nodes.cost_to_end + part.begin, best_cost,
                                best_item);  // i counts from the part's start
               });
}

u32 max_literal_cost(const NearOptimalCosts& costs) {
    return *std::max_element(std::begin(costs.literal), std::end(costs.literal));
}

bool keyed_costs_fit(const NearOptimalCosts& costs) {
    const u64 literal = max_literal_cost(costs);
    const u64 length = *std::max_element(&costs.length[kMinMatchLen], &costs.length[kMaxMatchLen + 1]);
    const u64 offset = *std::max_element(std::begin(costs.offset_slot), std::end(costs.offset_slot));
    // The spread of one position's real candidates below the clamp, and every real
    // cost_to_end (at most a block of literals) below 2^30, so that a candidate past the
    // block's end (0x80000000 + its costs - base) or past the longest length stays
    // above the clamp without wrapping.
    return 2 * (kMaxMatchLen - 1) * literal + length + offset < kKeyClamp &&
           u64(kMaxBlockLength) * literal < (u64(1) << 30);
}

PathIsa min_cost_path_isa() {
    static const PathIsa isa = [] {
        const char* cap = std::getenv("FLOWDEFLATE_SIMD");
        if (std::getenv("FLOWDEFLATE_NO_SIMD") || (cap && std::strcmp(cap, "scalar") == 0)) return PathIsa::scalar;
        if (__builtin_cpu_supports("avx512f") && !(cap && std::strcmp(cap, "avx2") == 0)) return PathIsa::avx512;
        if (__builtin_cpu_supports("avx2")) return PathIsa::avx2;
        return PathIsa::scalar;
    }();
    return isa;
}

const char* path_isa_name(PathIsa isa) {
    switch (isa) {
        case PathIsa::avx512: return "avx512";
        case PathIsa::avx2: return "avx2";
        case PathIsa::scalar: break;
    }
    return "scalar";
}

void min_cost_path(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes) {
    switch (min_cost_path_isa()) {
        case PathIsa::avx512: min_cost_path_avx512(part, costs, offset_slot, nodes); return;
        case PathIsa::avx2: min_cost_path_avx2(part, costs, offset_slot, nodes); return;
        case PathIsa::scalar: break;
    }
    min_cost_path_scalar(part, costs, offset_slot, nodes);
}

}  // namespace flowdeflate::core
