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
// The vector paths (AVX-512 or AVX2, chosen at run time by what the CPU has;
// min_cost_path_keyed.hpp) take 16 or 8 lengths at a time: per match, its offset cost
// plus cost(i + len) from consecutive addresses, made into keys (cost << 9 | length) whose
// unsigned minimum is the cheapest candidate and, among equal ones, the shortest length:
// the same choice.  Where the longest match is shorter than 11 they take the scalar loop:
// below that a vector pass costs more than the few lengths it covers (the thresholds
// measured are in docs/notes/levels-10-12.md).
#pragma once

#include "core/bt_match_finder.hpp"
#include "core/deflate_format.hpp"

namespace flowdeflate::core {

/// The cost model, in 1/16 bit.
struct NearOptimalCosts {
    u32 literal[kNumLiterals];
    u32 length[kMaxMatchLen + 1];
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
    /// How far past a match's end the vector paths read cost_to_end (a whole vector of
    /// 16 lengths, the lanes past the match masked out).
    static constexpr u32 kPad = 16;
    u32* cost_to_end;
    u32* items;
};

/// A part of a block: its positions [begin, end) of a block of block_length positions,
/// whose match cache (each position: its matches, then {number of matches, literal byte})
/// for the positions before end ends at cache_end.  The nodes of the positions from end on
/// must hold their costs already (at the block's end: PathNodes), as the path from each
/// position reads the costs of up to kMaxMatchLen positions after it.  A block's path in
/// parts, from its last part to its first, is the path of the whole block
/// (path_split.hpp runs parts on several threads).
struct PathPart {
    u32 begin;
    u32 end;
    u32 block_length;
    const LzMatch* cache_end;
};

/// Fills nodes for the part's positions.  @p offset_slot maps an offset (1..32768) to its
/// slot.
void min_cost_path_scalar(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes);
void min_cost_path_avx2(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes);
void min_cost_path_avx512(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes);

/// The same over a whole block (sets cost_to_end[block_length] to 0).
using PathFn = void (*)(PathPart, const NearOptimalCosts&, const u8*, PathNodes);
template <PathFn kPath>
void whole_block(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs, const u8* offset_slot,
                 PathNodes nodes) {
    nodes.cost_to_end[block_length] = 0;
    kPath(PathPart{0, block_length, block_length, cache_end}, costs, offset_slot, nodes);
}
inline void min_cost_path_scalar(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                                 const u8* offset_slot, PathNodes nodes) {
    whole_block<min_cost_path_scalar>(block_length, cache_end, costs, offset_slot, nodes);
}
inline void min_cost_path_avx2(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                               const u8* offset_slot, PathNodes nodes) {
    whole_block<min_cost_path_avx2>(block_length, cache_end, costs, offset_slot, nodes);
}
inline void min_cost_path_avx512(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                                 const u8* offset_slot, PathNodes nodes) {
    whole_block<min_cost_path_avx512>(block_length, cache_end, costs, offset_slot, nodes);
}

/// The vector paths' keys: (cost difference, clamped here) << 9 | length.
inline constexpr u32 kKeyClamp = 1u << 22;

/// The paths min_cost_path() chooses from, at run time.
enum class PathIsa { scalar, avx2, avx512 };
/// The widest the CPU has; FLOWDEFLATE_SIMD=avx2 or =scalar (or FLOWDEFLATE_NO_SIMD) caps it.
[[nodiscard]] PathIsa min_cost_path_isa();
[[nodiscard]] const char* path_isa_name(PathIsa isa);

/// The largest literal cost of the model.
[[nodiscard]] u32 max_literal_cost(const NearOptimalCosts& costs);
/// Do the model's costs fit the vector paths' 32-bit keys (min_cost_path_keyed.hpp)?
/// Every real candidate at position i costs within cost(i + 3) +- 257 * max literal cost
/// plus its offset and length costs, so a model whose literal costs stay below about 3,500
/// (libdeflate's stay below 15 bits * 16 = 240) fits; the vector paths take the scalar
/// loop for one that does not.
[[nodiscard]] bool keyed_costs_fit(const NearOptimalCosts& costs);
void min_cost_path(PathPart part, const NearOptimalCosts& costs, const u8* offset_slot, PathNodes nodes);
inline void min_cost_path(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                          const u8* offset_slot, PathNodes nodes) {
    whole_block<static_cast<PathFn>(min_cost_path)>(block_length, cache_end, costs, offset_slot, nodes);
}

}  // namespace flowdeflate::core
