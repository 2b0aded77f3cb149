// recorders.hpp - the observers (a parser's Trace / Out) that write a speculative parse
// down as a track (items.hpp, track.hpp) while the parser runs its own step loop.
#pragma once

#include <cassert>
#include <type_traits>
#include <vector>

#include "core/block_split.hpp"
#include "core/hc_match_finder.hpp"
#include "core/parsed_block.hpp"
#include "parallel/branches.hpp"
#include "parallel/items.hpp"
#include "parallel/track.hpp"

namespace flowdeflate::parallel {

// Records a parse as a track of items: the Trace of the history track (levels 2-9).
// kMasks: with each step's mask from the search (TrackPlan::step_masks), else with its own
// min_len alone.
template <bool kMasks>
struct TrackRecorder : NoTrace {
    static constexpr bool kSteps = true;
    static constexpr bool kStepMask = kMasks;
    ItemWriter out;
    const u8* stop_at;
    const u8* end;  // position after the last item
    u32 mask = 0;   // the step's

    TrackRecorder(ItemBuffer& items, const u8* begin, const u8* stop)
        : out(items, begin, stop), stop_at(stop), end(begin) {}
    bool stop(const u8* p) const { return p >= stop_at; }
    // Every step's last item says that it ends the step as it is written: a step ends
    // with a match or is one literal (the parser says which, put_literal_step()); only a
    // literal the lazy look-ahead deferred goes on.  (Marking the last item at the next
    // step's begin instead cost a read-modify-write of the item just written per step:
    // 3-9% of -6 -p2 on incompressible input.)
    [[gnu::always_inline]] void on_step_begin(const u8*, u32 min_len) {
        if constexpr (!kMasks) mask = own_min_len_mask(min_len);
    }
    [[gnu::always_inline]] void on_step_mask(u32 m, const HcMatchFinder::SharedMatch&) { mask = m; }
    [[gnu::always_inline]] void on_literal(const u8* p) {
        out.literal(mask, false);
        end = p + 1;
    }
    [[gnu::always_inline]] void on_literal_step(const u8* p) {
        out.literal(mask, true);
        end = p + 1;
    }
    [[gnu::always_inline]] void on_match(const u8* p, u32 len, u32 offset) {
        out.match(mask, len, offset);
        end = p + len;
    }
    void finish() {
        assert(out.next == out.first || (out.next[-1] & kStepEnd));
        out.finish();
    }
};

// Level 1's recorder (the parser's Out): the steps as sequences (Track::seqs, SeqStep), a
// stride mark every Track::kSeqStride matches.  The literals are only counted: Code reads
// them from the input.
struct SequenceRecorder {
    Track& t;
    SeqStep* first;
    SeqStep* seq;
    u32 lits = 0;  // literal steps since the last match

    SequenceRecorder(Track& track, const u8* stop) : t(track) {
        // A step that starts before stop ends at most a match past it; a match takes 3
        // bytes or more, and the last sequence has none.
        const std::size_t matches = (std::size_t(stop - t.begin) + kMaxMatchLen) / kMinMatchLen + 1;
        t.seqs.clear();
        t.seqs.reserve(matches + 1);
        t.seq_marks.clear();
        t.seq_marks.reserve(matches / Track::kSeqStride + 1);
        first = seq = t.seqs.data();
    }
    [[gnu::always_inline]] void literal(const u8*) { ++lits; }
    [[gnu::always_inline]] void match(const u8* p, u32 len, u32 offset) {
        *seq++ = SeqStep{lits, u16(len), u16(offset)};
        lits = 0;
        if (std::size_t(seq - first) % Track::kSeqStride == 0) [[unlikely]]
            t.seq_marks.push_back(u32(p + len - t.begin));
    }
    void finish() {
        *seq++ = SeqStep{lits, 0, 0};
        t.seqs.set_size(std::size_t(seq - first));
    }
};

// The history track's recorder at levels 2-9: also marks its strides (Track::LazyStride)
// from the parse's own block-split statistics, which count every item: the observations
// of a stride are the difference of the running totals at its two ends.  (Counting steps
// here, not in the parse's locals, cost the search 5%.)  The strides and checkpoints are
// written through pointers into room reserved up front, like the items, and nothing on
// this path is a call: a call there (a vector's growth path, even an empty function kept
// out of line) cost the parse loop registers.  In process, level 6 on 8 MiB of a .tar.xz,
// where a stride ends every 16 bytes: the parse alone 78.5 ms, the search 96.5 ms with
// push_back and resize, 90.3 ms without; with an empty stride_end() inlined, 80 ms.
template <bool kMasks, LazyMode kMode, bool kBranch = false>
struct LazyTrackRecorder : TrackRecorder<kMasks> {
    static_assert(kMasks || !kBranch, "branches follow the step masks");
    static constexpr bool kBranches = kBranch;  ///< read by the parser (parser_lazy.hpp)
    using Base = TrackRecorder<kMasks>;
    static constexpr std::size_t kStrideSteps = Track::kLazyStride;
    PodBuffer<Track::LazyStride>& strides;
    Track::LazyStride* next_stride;
    const u8* begin;
    u32 base[BlockSplitStats::kTypes] = {};  // totals of the track's finished blocks
    u32 last[BlockSplitStats::kTypes] = {};  // running totals at the last stride's end
    std::size_t base_matches = 0, last_matches = 0;
    u32 last_item = 0;
    // The AND of the masks of the stride's steps so far, each folded in at the next step's
    // begin (a pass over the stride's items at its end cost the search 1%).
    u32 stride_mask = HcMatchFinder::kAllMinLens;
    PodBuffer<u16>& checkpoints;  // Track::checkpoint_literals
    u16* next_checkpoint;
    u32 pending_literals[kNumLiterals] = {};
    u32 literals_at_checkpoint[kNumLiterals] = {};  // the parse's block's counts then

    LazyTrackRecorder(Track& t, const u8* stop)
        : Base(t.items, t.begin, stop), strides(t.strides), begin(t.begin), checkpoints(t.checkpoint_literals) {
        // Room for the most strides the track can have (a step per byte), so that they
        // never grow: a stride per 16 bytes of incompressible input is 1.5 MiB per MiB of
        // chunk, and growing a fresh vector copied it into new pages each time (60% of the
        // page faults of a -6 -p2 run on a .tar.xz).  The buffers are pooled (Track()).
        const std::size_t most = (std::size_t(stop - t.begin) + kMaxMatchLen) / Track::kLazyStride + 1;
        strides.clear();
        strides.reserve(most);
        next_stride = strides.data();
        checkpoints.clear();
        checkpoints.reserve((most / Track::kCheckpointStrides + 1) * kNumLiterals);
        next_checkpoint = checkpoints.data();
        this->mask = HcMatchFinder::kAllMinLens;  // no step before the first
    }
    [[gnu::always_inline]] void stride_end(const u8* p, const BlockSplitStats& split, std::size_t matches,
                                           const u32* litlen) {
        Track::LazyStride s;
        for (u32 type = 0; type < BlockSplitStats::kTypes; ++type) {
            const u32 total = base[type] + split.observations[type] + split.new_observations[type];
            s.observations[type] = u8(total - last[type]);
            last[type] = total;
        }
        s.matches = u16(base_matches + matches - last_matches);
        last_matches = base_matches + matches;
        s.item_end = u32(this->out.next - this->out.first);
        s.offset = u32(p - begin);
        s.mask = s.item_end - last_item <= Track::kMaxStrideItems ? u8(stride_mask) : 0;
        stride_mask = HcMatchFinder::kAllMinLens;
        last_item = s.item_end;
        assert(next_stride < strides.data() + strides.capacity());
        *next_stride++ = s;
        if (std::size_t(next_stride - strides.data()) % Track::kCheckpointStrides == 0) checkpoint(litlen);
    }
    // The literal counts since the last checkpoint: those of the track's blocks that ended
    // since (pending) and of its current block since then.  The parse counts its own
    // block's literals anyway (min_len recalculation); this only subtracts.
    [[gnu::always_inline]] void checkpoint(const u32* litlen) {
        u16* const out = next_checkpoint;
        next_checkpoint += kNumLiterals;
        assert(next_checkpoint <= checkpoints.data() + checkpoints.capacity());
        for (u32 c = 0; c < kNumLiterals; ++c) {
            out[c] = u16(pending_literals[c] + litlen[c] - literals_at_checkpoint[c]);
            pending_literals[c] = 0;
            literals_at_checkpoint[c] = litlen[c];
        }
    }
    // The branches (kBranch): see branches.hpp; without them, nothing.
    struct NoBranches {
        void watch(const HcMatchFinder&) {}
    };
    [[no_unique_address]] std::conditional_t<kBranch, BranchParses<kMode>, NoBranches> branches;
    const u8* step_at = nullptr;
    void watch(const HcMatchFinder& mf) { branches.watch(mf); }
    [[gnu::always_inline]] void on_step_begin(const u8* p, u32 min_len) {
        stride_mask &= this->mask;  // the step before this one's
        Base::on_step_begin(p, min_len);
        if constexpr (kBranch) {
            step_at = p;
            if (branches.active) [[unlikely]]
                branches.advance(p);
        }
    }
    [[gnu::always_inline]] void on_step_mask(u32 m, const HcMatchFinder::SharedMatch& found) {
        Base::on_step_mask(m, found);
        if constexpr (kBranch)
            if (~m & branches.idle & branches.armed) [[unlikely]]
                branches.branch(step_at, m, found);
    }
    void on_used_literals(u32 num_used, u32 depth) {
        if constexpr (kBranch) branches.arm(num_used, depth);
    }
    void finish() {
        Base::finish();
        strides.set_size(std::size_t(next_stride - strides.data()));
        checkpoints.set_size(std::size_t(next_checkpoint - checkpoints.data()));
        if constexpr (kBranch) branches.finish();
    }
    void on_block_end(const BlockSplitStats& split, std::size_t matches, const u32* litlen) {
        for (u32 type = 0; type < BlockSplitStats::kTypes; ++type)
            base[type] += split.observations[type] + split.new_observations[type];
        base_matches += matches;
        for (u32 c = 0; c < kNumLiterals; ++c) {  // the next block counts from 0
            pending_literals[c] += litlen[c] - literals_at_checkpoint[c];
            literals_at_checkpoint[c] = 0;
        }
    }
};

}  // namespace flowdeflate::parallel
