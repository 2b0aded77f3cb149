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
// the same choice.  Where the longest match is shorter than 11 they take the scalar loop
// (measured with the per-match scan before the register window, best of 5, 16 MiB,
// --sequential -12: from 3, 11, 19: packages.txt 3.88 / 3.78 / 3.87 s, libLLVM.so 3.22 /
// 2.94 / 3.10 s; scalar only 7.78 / 3.79 s; with the window, in-process, `build/micro
// --benchmark_filter=min_cost_path`, AVX-512 level 12 1.78 ms from 11 against 1.92 ms
// with no scalar loop).
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

/// Fills nodes for [0, block_length) from the match cache that ends at @p cache_end
/// (each position: its matches, then {number of matches, literal byte}).
/// @p offset_slot maps an offset (1..32768) to its slot.
void min_cost_path_scalar(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                          const u8* offset_slot, PathNodes nodes);
void min_cost_path_avx2(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                        const u8* offset_slot, PathNodes nodes);
void min_cost_path_avx512(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs,
                          const u8* offset_slot, PathNodes nodes);

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
void min_cost_path(u32 block_length, const LzMatch* cache_end, const NearOptimalCosts& costs, const u8* offset_slot,
                   PathNodes nodes);

}  // namespace flowdeflate::core
