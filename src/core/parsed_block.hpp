// parsed_block.hpp - the hand-over from a parser to the block coder, and what every
// parser shares (the level table, the default observer).
#pragma once

#include <span>

#include "core/levels.hpp"
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
