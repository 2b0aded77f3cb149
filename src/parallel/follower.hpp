// follower.hpp - the resolver following tracks (levels 2-9; level 1:
// sequence_follower.hpp): at each step of the true parse it takes
// the step a track (or one of the history track's branches) made at the same position,
// valid for the true min_len, and passes whole strides of a track at once where the
// block logic cannot decide anything inside them.  Where no track has such a step, the
// resolver repairs (repairer.hpp) until it meets a track again.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <deque>
#include <memory>
#include <type_traits>
#include <vector>

#include "parallel/block_logic.hpp"
#include "parallel/block_runs.hpp"
#include "parallel/items.hpp"
#include "parallel/track.hpp"

namespace flowdeflate::parallel {

/// A place in a track or in one of its branches (Track::Branch), always at a step start.
struct Cursor {
    const Track* track;  ///< null: a branch (no strides)
    const u32* items;
    std::size_t n;
    std::size_t i = 0;
    const u8* p;
    std::size_t stride = 0;  ///< no stride before this one ends at or before item i (a hint)

    static Cursor of(const Track& t) { return Cursor{&t, t.items.data(), t.items.size(), 0, t.begin}; }
    [[nodiscard]] bool at_end() const { return i >= n; }
    [[nodiscard]] bool fits(u32 min_len) const { return item_fits(items[i], min_len); }
    void skip_step() {
        for (;;) {
            const u32 item = items[i++];
            const u32 len = item_len(item);
            p += len ? len : 1;
            if (item & kStepEnd) break;
        }
    }
    /// Moves to the first step at or past @p target; true when one starts exactly there.
    bool seek(const u8* target) {
        while (p < target && !at_end()) skip_step();
        return p == target && !at_end();
    }
};

/// A chunk's tracks as the follower walks them.
struct Source {
    std::shared_ptr<const ChunkTracks> chunk;
    std::vector<Cursor> cursors;
    Cursor branch{};             ///< the branch taken last (history track's Track::branches)
    std::size_t next_branch = 0;  ///< the first of them not behind the resolver
};

template <class Parser>
class TrackFollower {
    static_assert(!BlockLogic<Parser>::kFastest, "level 1 follows sequences (sequence_follower.hpp)");

public:
    /// What find() found at a position.
    struct Found {
        Cursor* cursor = nullptr;  ///< the step to take; null: none fits (repair)
        bool synced = false;       ///< the resolver (re)joined a track or branch here
        bool branch = false;       ///< ... a branch
        bool some_track_here = false;  ///< none fits, but a track had a step here (another min_len)
    };

    /// The next chunk's tracks, in order.
    void add(std::shared_ptr<const ChunkTracks> tracks) {
        Source& src = sources_.emplace_back();
        for (const Track& t : tracks->tracks) src.cursors.push_back(Cursor::of(t));
        src.chunk = std::move(tracks);
    }

    /// The step at @p pos that fits @p min_len: the followed track's next one, or else the
    /// first track's (newest chunk first), or else a branch's that begins there (both are
    /// followed from then on).
    Found find(const u8* pos, u32 min_len) {
        Found found;
        if (following_ != nullptr && following_src_ != &sources_.back() && pos >= sources_.back().chunk->job.begin) {
            // Move on to the newest chunk's tracks as soon as one meets us.
            for (Cursor& c : sources_.back().cursors) {
                if (c.seek(pos) && fits(c, min_len)) {
                    follow(c, sources_.back(), found);
                    drop_old(pos);
                    break;
                }
            }
        }
        if (following_ != nullptr && following_->p == pos && !following_->at_end() && fits(*following_, min_len)) {
            found.cursor = following_;
            return found;
        }
        for (auto s = sources_.rbegin(); s != sources_.rend(); ++s) {
            for (Cursor& c : s->cursors) {
                if (!c.seek(pos)) continue;
                found.some_track_here = true;
                if (fits(c, min_len)) {
                    follow(c, *s, found);
                    found.cursor = &c;
                    return found;
                }
            }
        }
        for (auto s = sources_.rbegin(); s != sources_.rend(); ++s) {
            if (Cursor* c = branch_at(*s, pos, min_len)) {
                follow(*c, *s, found);
                found.branch = true;
                found.cursor = c;
                return found;
            }
        }
        following_ = nullptr;
        return found;
    }

    /// One step of @p c (what find() returned) at @p pos into the block; both move on.
    void take(Cursor& c, const u8*& pos, BlockLogic<Parser>& blk, BlockRuns& runs) {
        CountOnly out{blk};
        const std::size_t first = c.i;
        const u8* const at = pos;
        apply_step(c.items, c.i, pos, out);
        runs.add(c.items, first, c.i - first, at, following_src_->chunk, c.track);
        c.p = pos;
    }

    /// As many steps of the followed track from @p pos as the run may take (before @p stop,
    /// each valid for the block's min_len); false: it is not at @p pos.  Adds the steps
    /// taken to @p steps.
    bool follow_run(const u8*& pos, BlockLogic<Parser>& blk, const u8* stop, BlockRuns& runs, std::uint64_t& steps) {
        Cursor* c = following_;
        if (c == nullptr || c->p != pos || c->at_end()) return false;
        if (following_src_ != &sources_.back()) stop = std::min(stop, sources_.back().chunk->job.begin);
        const u8* const from = pos;
        take_steps(*c, pos, blk, stop, runs, steps);
        return pos != from;
    }

    /// Older chunks go once the resolver follows a newer one, or is past all their tracks.
    void drop_old(const u8* pos) {
        while (sources_.size() > 1) {
            Source& front = sources_.front();
            bool needed = following_src_ == &front;
            for (const Cursor& c : front.cursors) needed = needed || c.track->end > pos;
            if (needed && following_src_ != &sources_.back()) break;
            if (following_src_ == &front) {
                following_ = nullptr;
                following_src_ = nullptr;
            }
            sources_.pop_front();
        }
    }

private:
    // The block logic alone: the items go to Code as runs, not through here.
    struct CountOnly {
        BlockLogic<Parser>& blk;
        [[gnu::always_inline]] void literal(const u8* p) { blk.literal(*p); }
        [[gnu::always_inline]] void match(const u8*, u32 len, u32) { blk.match(len); }
    };

    [[nodiscard]] static bool fits(const Cursor& c, u32 min_len) {
        return c.fits(min_len);
    }

    void follow(Cursor& c, Source& s, Found& found) {
        following_ = &c;
        following_src_ = &s;
        found.synced = true;
    }

    // A branch of @p s's history track that begins at @p pos with a step that fits.
    static Cursor* branch_at(Source& s, const u8* pos, u32 min_len) {
        if (s.chunk->tracks.empty()) return nullptr;
        const Track& t = s.chunk->tracks.front();
        if (t.branches.empty() || pos < t.begin) return nullptr;
        const u32 at = u32(pos - t.begin);
        std::size_t k = s.next_branch;
        while (k < t.branches.size() && t.branches[k].begin < at) ++k;
        s.next_branch = k;
        for (; k < t.branches.size() && t.branches[k].begin == at; ++k) {
            const Track::Branch& b = t.branches[k];
            if (!item_fits(t.branch_items[b.first_item], min_len)) continue;
            s.branch = Cursor{nullptr, t.branch_items.data() + b.first_item, b.items, 0, pos};
            return &s.branch;
        }
        return nullptr;
    }

    // As many steps of @p c as the run may take.  The block's state is copied into locals
    // for the loop: stores into the symbol counts would otherwise make the compiler reload
    // it after every item (perf annotate put the resolver's time on those loads).
    void take_steps(Cursor& c, const u8*& pos, BlockLogic<Parser>& block, const u8* stop, BlockRuns& runs,
                    std::uint64_t& steps_taken) {
        BlockLogic<Parser> blk = block;
        CountOnly out{blk};
        const u32* const items = c.items;
        const std::size_t n = c.n;
        std::size_t i = c.i;
        const u8* p = pos;
        std::uint64_t steps = 0;
        if (c.track) pass_lazy_strides(*c.track, blk, i, p, stop, steps, out, c.stride);
        while (i < n && blk.run_goes_on(p, stop)) {
            if (!item_fits(items[i], blk.min_len)) break;
            apply_step(items, i, p, out);
            ++steps;
        }
        block = blk;
        runs.add(items, c.i, i - c.i, pos, following_src_->chunk, c.track);
        pos = p;
        c.i = i;
        c.p = p;
        steps_taken += steps;
    }

    // Over the track's LazyStrides.  A stride goes in one go when
    // every step of it fits the block's min_len (its mask) and none of them could stop
    // the run (run_goes_on()): it ends by the run's stop and below the sequence limit,
    // and no block-split check can fall at any of its step ends (fewer than 512 new
    // observations by its end, or the block shorter than 5000 bytes by its end, or less
    // than 5000 bytes of input left from its start).  Then the stride's observation
    // counts go into the statistics at once.  First walks to a stride's start.
    // (@p hint: a stride at or before the first that ends after item i; the cursor keeps it,
    // since it only moves on: a binary search per call was 8% of the resolver on text,
    // where repairs make many short runs.)
    template <class Out>
    static void pass_lazy_strides(const Track& t, BlockLogic<Parser>& blk, std::size_t& i, const u8*& p,
                                  const u8* stop, std::uint64_t& steps, Out& out, std::size_t& hint) {
        const PodBuffer<Track::LazyStride>& strides = t.strides;
        std::size_t k = hint;
        while (k < strides.size() && strides[k].item_end <= i) ++k;
        hint = k;
        if (k == strides.size()) return;
        const u32* const items = t.items.data();
        if (i != (k == 0 ? 0 : strides[k - 1].item_end)) {  // inside stride k: walk to its end
            while (i < strides[k].item_end) {
                if (!blk.run_goes_on(p, stop) || !item_fits(items[i], blk.min_len)) return;
                apply_step(items, i, p, out);
                ++steps;
            }
            ++k;
        }
        BlockSplitStats& split = blk.split;
        for (; k < strides.size(); ++k) {
            const Track::LazyStride& s = strides[k];
            const u8* const q = t.begin + s.offset;
            const u32 observations = s.item_end - u32(i);
            const bool no_check = split.num_new_observations + observations < BlockSplitStats::kObservationsPerCheck ||
                                  q - blk.block_begin < std::ptrdiff_t(kMinBlockLength) ||
                                  blk.in_end - p < std::ptrdiff_t(kMinBlockLength);
            if (!mask_fits(s.mask, blk.min_len) || q > stop || blk.num_matches + s.matches >= blk.seq_limit ||
                !no_check)
                return;
            for (u32 type = 0; type < BlockSplitStats::kTypes; ++type)
                split.new_observations[type] += s.observations[type];
            split.num_new_observations += observations;
            blk.num_matches += s.matches;
            p = q;
            i = s.item_end;
            steps += Track::kLazyStride;
        }
    }

    // All of it is the resolver's thread's (the serial Resolve node).
    std::deque<Source> sources_;
    Cursor* following_ = nullptr;
    Source* following_src_ = nullptr;
};

}  // namespace flowdeflate::parallel
