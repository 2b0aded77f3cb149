// resolved_block.hpp - what Resolve hands Code: a block whose extent and parse are final.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "core/sequence.hpp"
#include "parallel/items.hpp"

namespace flowdeflate::parallel {

/// Consecutive items of a block's steps (a track's, or a repair's), starting at input
/// position `at`.
struct ItemRun {
    const u32* items;
    std::size_t count;
    const u8* at;
};

/// Level 1: a block's steps taken from one run of sequences (a track's, Track::seqs, or a
/// repair's): from literal j0 of sequence s0 to literal j1 of sequence s1 (not included),
/// at input position `at` (sequence_follower.hpp).
struct SeqRun {
    const SeqStep* seqs;
    std::size_t s0;
    u32 j0;
    std::size_t s1;
    u32 j1;
    const u8* at;
};

/// A block as the resolver decided it: what the coder needs.  Written by the resolver's
/// thread, then read-only (shared_ptr<const>) by one Code worker, and by Assemble when one
/// worker codes at assembly.  The runs of items it took over from tracks and repairs,
/// from which Code builds its sequences and symbol counts (in parallel: the serial
/// resolver only walks the items for the block logic).
struct ResolvedBlock {
    std::size_t index = 0;  ///< blocks are numbered in stream order from 0
    std::span<const u8> data;
    std::vector<ItemRun> runs;  ///< the block's items, in order (levels 2-9)
    std::vector<SeqRun> seq_runs;  ///< the block's sequences, in order (level 1)
    /// The counts of the literals among the first literals_counted items of the runs (the
    /// resolver counts as far as its min_len recalculations need); Code counts the rest.
    u32 litlen[kNumLiterals] = {};
    std::size_t literals_counted = 0;
    std::vector<std::shared_ptr<const void>> keep;  ///< what the runs point into
    bool is_final = false;
    bool stored_only = false;    ///< tiny input: the whole input as stored blocks
};

}  // namespace flowdeflate::parallel
