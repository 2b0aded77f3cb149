// track.hpp - what the search of one chunk hands the resolver: its tracks, each the
// items (level 1: sequences) of a speculative parse from the chunk's start (items.hpp), with the summaries
// that let the resolver pass many steps at once, and the history track's branches.
#pragma once

#include <cstdint>
#include <vector>

#include "parallel/chunker.hpp"
#include "parallel/items.hpp"

namespace flowdeflate::parallel {

/// A track: its steps' items (level 1: its steps as sequences).  The buffers are recycled
/// (pool.hpp).
struct Track {
    /// Level 1: the track's steps as sequences (sequence_follower.hpp), and where it stands
    /// after every kSeqStride matches, so that the resolver can pass many in one go.
    static constexpr std::size_t kSeqStride = 64;

    /// Levels 2-9: what every kLazyStride steps of the track add to the block logic, so
    /// that the resolver can pass them in one go where no block-split check, limit or
    /// min_len recalculation falls among them (see follower.hpp).
    struct LazyStride {
        u32 item_end;  ///< items before the stride's end
        u32 offset;    ///< position after the stride, from begin
        u16 matches;   ///< matches in the stride
        u8 mask;       ///< the AND of its steps' masks: the min_len every step fits
        u8 observations[10];  ///< its items by block-split observation type
    };
    static constexpr std::size_t kLazyStride = 16;
    /// A stride of more items (a lazy step may defer many literals) would overflow its
    /// counts: its mask is 0, so the resolver walks it.
    static constexpr u32 kMaxStrideItems = 255;

    /// Levels 2-9, history track: the literal counts of every kCheckpointStrides strides
    /// (a *checkpoint*), so that the resolver, which needs a block's literal counts for
    /// libdeflate's min_len recalculations, adds 256 counts per checkpoint instead of
    /// walking its items (literal_counts(); see BlockRuns::count_literals_to()).
    static constexpr std::size_t kCheckpointStrides = 64;

    /// Levels 2-9, history track with step masks: a stretch where the parse with another
    /// min match length (TrackPlan::branch_min_lens) makes other steps than the track,
    /// from the track step where it branches off to the track step where it meets the
    /// track again (or, where it gives up, to the end of its last step).  The resolver
    /// takes it where the true min_len is that one: without it, it would parse there itself.
    struct Branch {
        u32 begin;       ///< from the track's begin: a step start of the track
        u32 end;         ///< after its last step
        u32 first_item;  ///< its steps: branch_items[first_item, first_item + items)
        u32 items;
        u32 min_len;
    };

    const u8* begin = nullptr;
    const u8* end = nullptr;  ///< position after the last step
    ItemBuffer items;
    std::vector<Branch> branches;  ///< in order of begin
    ItemBuffer branch_items;
    /// Level 1: the steps, each sequence a run of literal steps and a match step; the last
    /// sequence has no match (its literals end the track).  No items are written.
    PodBuffer<SeqStep> seqs;
    /// Level 1: seq_marks[k]: the position after sequence (k + 1) * kSeqStride - 1's match,
    /// from begin.
    std::vector<u32> seq_marks;
    PodBuffer<LazyStride> strides;  ///< strides[k]: steps k * kLazyStride.. (levels 2-9; pooled)
    /// Checkpoint k's literal counts at [k * kNumLiterals, (k + 1) * kNumLiterals): those
    /// of strides k * kCheckpointStrides .. (k + 1) * kCheckpointStrides - 1 (levels 2-9,
    /// history track).  16 bits each: a checkpoint of more than kMaxCheckpointItems items
    /// (lazy steps that defer many literals) may have wrapped, and is walked instead.
    PodBuffer<u16> checkpoint_literals;
    static constexpr u32 kMaxCheckpointItems = 0xFFFF;

    [[nodiscard]] std::size_t checkpoints() const { return checkpoint_literals.size() / kNumLiterals; }
    /// The last stride of checkpoint @p k: its item_end and offset end the checkpoint.
    [[nodiscard]] const LazyStride& checkpoint_end(std::size_t k) const {
        return strides[(k + 1) * kCheckpointStrides - 1];
    }
    [[nodiscard]] const u16* literal_counts(std::size_t k) const { return checkpoint_literals.data() + k * kNumLiterals; }
    /// Are checkpoint @p k's counts exact?
    [[nodiscard]] bool checkpoint_counted(std::size_t k) const {
        const u32 first = k == 0 ? 0 : checkpoint_end(k - 1).item_end;
        return checkpoint_end(k).item_end - first <= kMaxCheckpointItems;
    }

    Track();   ///< takes an item buffer from the pool
    ~Track();  ///< gives its buffers back
    Track(Track&&) noexcept = default;
    Track& operator=(Track&&) noexcept = default;
};

/// A searched chunk: Search -> Resolve.  Written by the Search worker that made it, then
/// read-only (shared_ptr<const>) by the resolver and, through ResolvedBlock::keep, by the
/// Code workers whose blocks point into its items; the last of them frees it.
struct ChunkTracks {
    ChunkJob job;
    std::vector<Track> tracks;
    bool step_masks = false;      ///< the plan's, as searched
    bool branches = false;        ///< searched with branches (Track::branches)
    std::uint64_t search_ns = 0;  ///< CPU time the search took (core/clock.hpp)
    int worker = -1;              ///< the arena slot of the thread that searched it (graph/), or -1
};

}  // namespace flowdeflate::parallel
