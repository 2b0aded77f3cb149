// parsed_block.hpp - the hand-over from a parser to the block coder, and the per-level
// parameters that select and tune the parsers.
#pragma once

#include <span>

#include "core/sequence.hpp"

namespace flowdeflate::core {

/// One block as a parser decided it.  Everything the coder needs, nothing it must ask
/// the parser for; the storage belongs to the parser and is valid during the callback.
struct ParsedBlock {
    std::span<const u8> data;     ///< the block's uncompressed bytes
    const Sequence* seqs;         ///< literal runs and matches; the last has length 0
    const SymbolFreqs* freqs;     ///< symbol counts, end-of-block included
    const HuffmanCodes* codes;    ///< codes the parser already built, or nullptr
    bool is_final;                ///< last block of the stream
};

/// libdeflate's table of levels.  Each value decides bits.
struct LevelParams {
    int level;
    u32 max_search_depth;      ///< chain/tree nodes visited per search
    u32 nice_match_length;     ///< stop searching at a match this long
    std::size_t max_passthrough_size;  ///< inputs up to this size are stored as-is
    // near-optimal (levels 10-12) only:
    u32 max_optim_passes = 0;
    u32 min_improvement_to_continue = 0;
    u32 min_bits_to_use_nonfinal_path = 0;
    u32 max_len_to_optimize_static_block = 0;

    static LevelParams for_level(int level) {
        // The higher the level, the smaller the inputs that are still worth compressing.
        const std::size_t passthrough = level == 0 ? SIZE_MAX : std::size_t(55 - level * 4);
        switch (level) {
            case 0: return {0, 0, 0, passthrough};
            case 1: return {1, 0, 32, passthrough};  // depth fixed by the hash table
            case 2: return {2, 6, 10, passthrough};
            case 3: return {3, 12, 14, passthrough};
            case 4: return {4, 16, 30, passthrough};
            case 5: return {5, 16, 30, passthrough};
            case 6: return {6, 35, 65, passthrough};
            case 7: return {7, 100, 130, passthrough};
            case 8: return {8, 300, kMaxMatchLen, passthrough};
            case 9: return {9, 600, kMaxMatchLen, passthrough};
            case 10: return {10, 35, 75, passthrough, 2, 32, 32, 0};
            case 11: return {11, 100, 150, passthrough, 4, 16, 16, 1000};
            default: return {12, 300, kMaxMatchLen, passthrough, 10, 1, 1, 10000};
        }
    }
};

/// A parse observer that does nothing (the default).  Tests and the parallel resolver
/// plug in observers that record items or capture the parse state at given positions.
struct NoTrace {
    static constexpr bool kEnabled = false;  ///< on_step() gets the whole parse state
    static constexpr bool kSteps = false;    ///< stop() and on_step_begin() are called
    template <class State> void on_step(const u8*, const State&) {}
    bool stop(const u8*) { return false; }   ///< end the parse before this step
    void on_step_begin(const u8*, u32 /*min_len*/) {}
    void on_literal(const u8*) {}
    void on_match(const u8*, u32, u32) {}
};

/// max_len and nice_len at a position: both shrink only in the last 258 bytes.
[[gnu::always_inline]] inline void adjust_max_and_nice_len(u32& max_len, u32& nice_len, std::size_t remaining) {
    if (remaining < kMaxMatchLen) [[unlikely]] {
        max_len = u32(remaining);
        nice_len = std::min(nice_len, max_len);
    }
}

}  // namespace flowdeflate::core
