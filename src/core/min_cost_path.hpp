// min_cost_path.hpp - the inner loop of the near-optimal levels (10-12): the cheapest way
// from each position of a block to its end, under a cost model, over the matches the
// search cached.  It is the serial chain of those levels (each block's costs come from
// the previous block's result), 43-75% of their time, so it has a vector path.
//
// Backwards over the block, for position i with cached matches m_0 < m_1 < ... (by
// length): the candidates are the literal, then every length 3..longest, each with the
// smallest offset that offers it (the first m_j at least that long):
//
//   cost(i) = min(literal_cost[byte] + cost(i + 1),
//                 min over len of offset_cost(slot(m_j)) + length_cost[len] + cost(i + len))
//
// Ties go to the earliest candidate (the literal, then the shorter length), exactly as
// libdeflate's loop takes a candidate only when it is strictly cheaper.
//
// The vector path (AVX2, chosen at run time when the CPU has it) takes 8 lengths at a
// time: a row of offset costs by length (each match's cost written over its lengths),
// plus the length costs, plus cost(i + len), all loaded from consecutive addresses.  Each
// lane keeps its cheapest candidate and the first length that reached it; the winner is
// the cheapest lane value, and among equal lanes the smallest length: the same choice.
#pragma once

#include "core/bt_match_finder.hpp"
#include "core/deflate_format.hpp"

namespace flowdeflate::core {

/// The cost model, in 1/16 bit.  length[] is padded so that 8 lengths can be read from
/// any length up to kMaxMatchLen.
struct NearOptimalCosts {
    static constexpr u32 kPad = 8;
    u32 literal[kNumLiterals];
    u32 length[kMaxMatchLen + 1 + kPad];
    u32 offset_slot[kNumOffsetSyms];
};

/// An item of the path: low 9 bits the length (1: a literal), high bits the offset or the
/// literal byte.
inline constexpr u32 kItemOffsetShift = 9;
inline constexpr u32 kItemLenMask = (1u << kItemOffsetShift) - 1;

/// Where the path goes.  cost_to_end[block_length] must be 0 and the entries after it up
/// to block_length + kMaxMatchLen - 1 a cost no path takes (0x80000000); the arrays need
/// room for block_length + kMaxMatchLen + kPad entries (cost) and block_length (items).
struct PathNodes {
    u32* cost_to_end;
    u32* items;
};

/// Fills nodes for [0, block_length) from the match cache that ends at @p cache_end
/// (each position: its matches, then {number of matches, literal byte}).
/// @p offset_slot maps an offset (1..32768) to its slot.
void min_cost_path_scalar(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                          const u8* offset_slot, PathNodes nodes);
void min_cost_path_avx2(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                        const u8* offset_slot, PathNodes nodes);
/// The AVX2 path when the CPU has it (and FLOWDEFLATE_NO_SIMD is not set), else the scalar.
[[nodiscard]] bool min_cost_path_uses_avx2();
void min_cost_path(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs, const u8* offset_slot,
                   PathNodes nodes);

}  // namespace flowdeflate::core
