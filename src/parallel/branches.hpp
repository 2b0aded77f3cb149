// branches.hpp - the parses with other min match lengths beside the history track
// (Track::branches).
//
// Where a track step's mask leaves out one of TrackPlan::branch_min_lens, the parse with
// that min_len makes another step there; it is replayed from that step on, a few
// positions behind the track, over the track's own match finder
// (HcMatchFinder::search_past()), until it begins a step where the track begins one
// (from there on the two are the same parse again, as far as the masks hold) or gives up:
// after kMaxBytes, near the end of the data, or where the finder no longer knows its
// past.  Its completed steps go to the track as a Track::Branch.  A state machine
// replaying LazyParser::step().
//
// Branches cost search time (on text one begins every ~15 bytes and lasts ~3, and the
// resolver takes about one in twenty), so the planner asks for them only where the serial
// resolver is the bottleneck, and may arm them only near a threshold of the min_len
// choice (arm()); docs/notes/parallel-levels-1-9.md has the measurements.
#pragma once

#include <algorithm>
#include <cassert>
#include <vector>

#include "core/block_split.hpp"
#include "core/hc_match_finder.hpp"
#include "core/parsed_block.hpp"
#include "core/parser_lazy.hpp"
#include "parallel/track.hpp"
#include "parallel/track_plan.hpp"

namespace flowdeflate::parallel {

template <LazyMode kMode>
class BranchParses {
public:
    static constexpr std::size_t kMaxLive = 4;
    static constexpr std::ptrdiff_t kMaxBytes = 4096;
    static constexpr u32 kFar3 = LazyParser<kMode>::kFar3;

    u32 idle = 0;    ///< mask bits of the min_lens not branched off now
    u32 active = 0;  ///< how many are
    u32 armed = ~0u;  ///< mask bits of the min_lens that may branch off now (see arm())

    /// The track chose its min_len from @p num_used literals: from here on, branch only to
    /// the min_lens a count within TrackPlan::arm_margin of it gives.  The true parse
    /// counts over another stretch (its block began elsewhere), but on the same data:
    /// where the track's count is far from a threshold of choose_min_match_len(), the
    /// true min_len is nearly always the track's own, and a branch there would never be
    /// taken.
    void arm(u32 num_used, u32 depth) {
        if (margin_ != TrackPlan::kAnyMargin) armed = min_lens_near(num_used, depth, margin_);
    }

    void setup(Track& t, const TrackPlan& plan, const LevelParams& params, const u8* in_begin,
               const u8* data_end) {
        const std::vector<u32>& min_lens = plan.branch_min_lens;
        margin_ = plan.arm_margin;
        track_ = &t;
        armed = ~0u;
        n_ = 0;
        for (u32 m : min_lens)
            if (n_ < kMaxLive && m >= kMinMatchLen && m <= kMinMatchLen + 6) { live_[n_] = Live{}; live_[n_++].min_len = m; }
        idle = 0;
        for (std::size_t i = 0; i < n_; ++i) idle |= own_min_len_mask(live_[i].min_len);
        depth_ = params.max_search_depth;
        nice_ = std::min(params.nice_match_length, kMaxMatchLen);
        in_begin_ = in_begin;
        last_ = data_end - std::ptrdiff_t(2 * kMaxMatchLen);
    }
    void watch(const HcMatchFinder& mf) { mf_ = &mf; }

    /// The track's step at @p at has @p mask and found @p found there: those of the idle
    /// min_lens it leaves out branch off there, taking their first step from the same
    /// search.  (A search without a 3-byte candidate, node3, is a literal for every
    /// min_len, so its mask leaves none out and nothing branches.)
    void branch(const u8* at, u32 mask, const HcMatchFinder::SharedMatch& found) {
        if (at <= in_begin_ || at >= last_) return;
        for (std::size_t i = 0; i < n_; ++i) {
            Live& br = live_[i];
            const u32 bit = own_min_len_mask(br.min_len);
            if (!(idle & armed & bit) || (mask & bit)) continue;
            idle &= ~bit;
            active++;
            br.active = true;
            br.phase = 0;
            br.next = at;
            br.items.clear();
            br.done = 0;
            track_->branches.push_back(Track::Branch{u32(at - track_->begin), u32(at - track_->begin), 0, 0, br.min_len});
            br.record = track_->branches.size() - 1;
            assert(found.node3_valid);
            take(br, at, found);
        }
    }

    /// The track is at a step start @p now (the finder holds the positions before it):
    /// every branch goes as far as the finder allows, and those that begin a step at now
    /// meet the track.
    void advance(const u8* now) {
        for (std::size_t i = 0; i < n_; ++i) {
            Live& br = live_[i];
            while (br.active) {
                if (br.phase == 0 && br.next >= now) {
                    if (br.next == now) end(br);
                    break;
                }
                if (br.next > now) break;
                if (br.next - (track_->begin + track_->branches[br.record].begin) > kMaxBytes || br.next >= last_ ||
                    !position(br, now)) {
                    end(br);
                    break;
                }
            }
        }
    }

    /// The track ends: every branch keeps its completed steps.
    void finish() {
        for (std::size_t i = 0; i < n_; ++i)
            if (live_[i].active) end(live_[i]);
        std::erase_if(track_->branches, [](const Track::Branch& br) { return br.items == 0; });
    }

private:
    struct Live {
        u32 min_len = 0;
        bool active = false;
        u8 phase = 0;  // 0: step start; 1, 2: the lazy look-ahead at +1, +2
        const u8* next = nullptr;
        const u8* match_pos = nullptr;
        u32 cur_len = 0, cur_offset = 0;
        u32 mask = 0;
        std::size_t record = 0;  // its Track::Branch
        std::vector<u32> items;  // its items (branches run at once: each its own)
        std::size_t done = 0;    // ... of its completed steps
    };

    void item(Live& br, u32 v) { br.items.push_back(v); }
    void literal(Live& br, bool step_end) { item(br, (br.mask << kMaskShift) | (step_end ? kStepEnd : 0)); }
    // The step ends at @p end (with the held match when @p with_match).
    void finish_step(Live& br, const u8* end, bool with_match) {
        if (with_match) item(br, kStepEnd | (br.mask << kMaskShift) | match_item(br.cur_len, br.cur_offset));
        track_->branches[br.record].end = u32(end - track_->begin);
        br.done = br.items.size();
        br.phase = 0;
        br.next = end;
    }
    void hold(Live& br, const u8* p) {
        if (br.cur_len >= nice_) {
            finish_step(br, br.match_pos + br.cur_len, true);
        } else {
            br.phase = 1;
            br.next = p;
        }
    }
    // The branch's search at a.next; false: gave up.
    bool position(Live& br, const u8* now) {
        HcMatchFinder::SharedMatch found;
        const u32 depth = br.phase == 0 ? depth_ : br.phase == 1 ? depth_ >> 1 : depth_ >> 2;
        if (!mf_->search_past(br.next, now, kMaxMatchLen, nice_, depth, found)) return false;
        take(br, br.next, found);
        return true;
    }
    // What the branch's step does with @p found, its search at @p q.
    void take(Live& br, const u8* q, const HcMatchFinder::SharedMatch& found) {
        u32 offset = 0;
        if (br.phase == 0) {
            const u32 len = found.step(br.min_len, kFar3, offset, [&](u32 mask) { br.mask = mask; });
            if (len == 0) {
                literal(br, true);
                finish_step(br, q + 1, false);
                return;
            }
            br.match_pos = q;
            br.cur_len = len;
            br.cur_offset = offset;
            if constexpr (kMode == LazyMode::greedy)
                finish_step(br, q + len, true);
            else
                hold(br, q + 1);
            return;
        }
        const bool first = br.phase == 1;
        const u32 next_len = found.result(br.cur_len - 1, offset);
        if (lazy_prefers_next(br.cur_len, br.cur_offset, next_len, offset, first ? 2 : 6)) {
            if (!first) literal(br, false);
            literal(br, false);
            br.match_pos = q;
            br.cur_len = next_len;
            br.cur_offset = offset;
            hold(br, q + 1);
        } else if (first && kMode == LazyMode::lazy2) {
            br.phase = 2;
            br.next = q + 1;
        } else {
            finish_step(br, br.match_pos + br.cur_len, true);
        }
    }
    // Stops a branch: its completed steps go to the track (a branch without any is
    // dropped at finish()), its unfinished step is dropped.
    void end(Live& br) {
        Track::Branch& t = track_->branches[br.record];
        t.first_item = u32(track_->branch_items.size());
        t.items = u32(br.done);
        track_->branch_items.append(br.items.data(), br.done);
        br.active = false;
        active--;
        idle |= own_min_len_mask(br.min_len);
    }

    Track* track_ = nullptr;
    const HcMatchFinder* mf_ = nullptr;
    Live live_[kMaxLive];
    std::size_t n_ = 0;
    u32 depth_ = 0, nice_ = 0;
    u32 margin_ = TrackPlan::kAnyMargin;
    const u8* in_begin_ = nullptr;
    const u8* last_ = nullptr;
};

}  // namespace flowdeflate::parallel
