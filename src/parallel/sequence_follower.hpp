// sequence_follower.hpp - level 1's tracks as sequences, and the resolver following them.
//
// At level 1 a step is a literal or a match and depends only on its position (the match
// finder's state is a function of the 32 KiB before it), and the block logic only counts
// matches and looks at the position (block_logic.hpp).  So a level-1 track is written as
// the sequences Code needs (core/sequence.hpp: a run of literals, then a match; the
// track's last sequence has no match and holds the literals after the last one), every
// literal of a run being a step of its own; the resolver passes a run of literals in
// one go, and whole strides of sequences (Track::seq_marks) where the block cannot end
// inside them.  Code copies the sequences of a block's runs (SeqRun) and counts their
// symbols; nothing is rebuilt from items.  (With items, the search wrote one per literal
// and Code rebuilt sequences from them: 8% of a -1 -p2 run.)
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "core/sequence.hpp"
#include "parallel/block_logic.hpp"
#include "parallel/resolved_block.hpp"
#include "parallel/track.hpp"

namespace flowdeflate::parallel {

/// A place in a run of sequences, at a step start: before literal `j` of sequence `s`
/// (j == its literal count: before its match), at input position `p`.
struct SeqCursor {
    const Track* track = nullptr;
    const SeqStep* seqs = nullptr;
    std::size_t n = 0;  ///< sequences; the last has no match
    std::size_t s = 0;
    u32 j = 0;
    const u8* p = nullptr;

    static SeqCursor of(const Track& t) { return SeqCursor{&t, t.seqs.data(), t.seqs.size(), 0, 0, t.begin}; }
    [[nodiscard]] bool at_end() const { return n == 0 || (s + 1 == n && j == seqs[s].litrun); }
    /// Moves to the first step at or past @p target; true when one starts exactly there.
    bool seek(const u8* target) {
        while (p < target && !at_end()) {
            const u32 left = seqs[s].litrun - j;
            if (left != 0) {
                const u32 take = u32(std::min<std::size_t>(left, std::size_t(target - p)));
                j += take;
                p += take;
            } else {
                p += seqs[s].length;
                ++s;
                j = 0;
            }
        }
        return p == target && !at_end();
    }
};

/// What the level-1 resolver collects of the block it is in: its runs of sequences, and
/// what keeps them alive until Code is done.
class SeqBlockRuns {
public:
    void begin() {
        runs_.clear();
        keep_.clear();
        repair_.reset();
    }
    /// The steps of @p c from (@p s0, @p j0) at @p at to where @p c stands now.
    void add(const SeqCursor& c, std::size_t s0, u32 j0, const u8* at, const std::shared_ptr<const ChunkTracks>& owner) {
        if (c.s == s0 && c.j == j0) return;
        if (!runs_.empty()) {
            SeqRun& last = runs_.back();
            if (last.seqs == c.seqs && last.s1 == s0 && last.j1 == j0) {
                last.s1 = c.s;
                last.j1 = c.j;
                return;
            }
        }
        runs_.push_back(SeqRun{c.seqs, s0, j0, c.s, c.j, at});
        if (keep_.empty() || keep_.back().get() != owner.get()) keep_.push_back(owner);
    }

    /// A repair's steps: literal(p) and match(p, len, offset) append to the block's repair
    /// sequences; close_repair() makes them a run.
    void repair_literal() { ++repair_lits_; }
    void repair_match(u32 len, u32 offset) {
        repair_seqs().push_back(SeqStep{repair_lits_, u16(len), u16(offset)});
        repair_lits_ = 0;
    }
    /// The repair steps since @p at (where the repair began) become a run.
    void close_repair(const u8* at) {
        std::vector<SeqStep>& v = repair_seqs();
        v.push_back(SeqStep{repair_lits_, 0, 0});
        const std::size_t first = repair_first_;
        repair_first_ = v.size();
        // (The vector may still grow: the run's pointer is set in finish().)
        runs_.push_back(SeqRun{nullptr, first, 0, v.size() - 1, repair_lits_, at});
        repair_lits_ = 0;
    }

    /// Hands the block's runs to @p block.
    void finish(ResolvedBlock& block) {
        for (SeqRun& r : runs_)
            if (r.seqs == nullptr) r.seqs = repair_->data();
        block.seq_runs = std::move(runs_);
        if (repair_) keep_.push_back(std::move(repair_));
        block.keep = std::move(keep_);
        runs_.clear();
        keep_.clear();
        repair_.reset();
        repair_first_ = 0;
    }

private:
    std::vector<SeqStep>& repair_seqs() {
        if (!repair_) repair_ = std::make_shared<std::vector<SeqStep>>();
        return *repair_;
    }

    std::vector<SeqRun> runs_;
    std::vector<std::shared_ptr<const void>> keep_;
    std::shared_ptr<std::vector<SeqStep>> repair_;  ///< this block's repaired steps
    std::size_t repair_first_ = 0;
    u32 repair_lits_ = 0;
};

/// The level-1 resolver's tracks: one per chunk, followed as sequences.
class SeqFollower {
public:
    using Logic = BlockLogic<FastestParser>;

    void add(std::shared_ptr<const ChunkTracks> tracks) {
        Source& src = sources_.emplace_back();
        for (const Track& t : tracks->tracks) src.cursors.push_back(SeqCursor::of(t));
        src.chunk = std::move(tracks);
    }

    /// What find() found at a position.
    struct Found {
        SeqCursor* cursor = nullptr;  ///< a track with a step there; null: none (repair)
        bool synced = false;          ///< the resolver (re)joined a track here
    };

    /// The followed track's step at @p pos, or else the first track's that has one (the
    /// newest chunk's first), followed from then on.
    Found find(const u8* pos) {
        if (following_ != nullptr && following_->p == pos && !following_->at_end()) return {following_, false};
        for (std::size_t k = sources_.size(); k-- > 0;) {
            Source& s = sources_[k];
            for (std::size_t i = 0; i < s.cursors.size(); ++i) {
                if (s.cursors[i].seek(pos)) {
                    follow(k, i);
                    return {following_, true};
                }
            }
        }
        following_ = nullptr;
        return {};
    }

    /// One step of @p c (what find() returned) at @p pos into the block; both move on.
    void take_step(SeqCursor& c, const u8*& pos, Logic& blk, SeqBlockRuns& runs) {
        const std::size_t s0 = c.s;
        const u32 j0 = c.j;
        const SeqStep& seq = c.seqs[c.s];
        if (c.j < seq.litrun) {
            ++c.j;
            ++c.p;
        } else {
            blk.match(seq.length);
            c.p += seq.length;
            ++c.s;
            c.j = 0;
        }
        runs.add(c, s0, j0, pos, following_src()->chunk);
        pos = c.p;
    }

    /// As many steps of the followed track from @p pos as the run may take (before @p
    /// stop, and before the newest chunk's begin while an older chunk's track is followed);
    /// false: it is not at @p pos, or that begin held it (the caller then takes one step
    /// through find() and take_step()).  Adds the steps to @p runs, counts them in @p steps,
    /// and a move to the newest chunk's track in @p syncs.
    bool follow_run(const u8*& pos, Logic& blk, const u8* stop, SeqBlockRuns& runs, std::uint64_t& steps,
                    std::uint64_t& syncs) {
        if (following_ != nullptr && following_source_ + 1 != sources_.size() &&
            pos >= sources_.back().chunk->job.begin) {
            // Move on to the newest chunk's track as soon as it meets us.
            Source& newest = sources_.back();
            for (std::size_t i = 0; i < newest.cursors.size(); ++i) {
                if (newest.cursors[i].seek(pos)) {
                    follow(sources_.size() - 1, i);
                    ++syncs;
                    drop_old(pos);
                    break;
                }
            }
        }
        SeqCursor* c = following_;
        if (c == nullptr || c->p != pos || c->at_end()) return false;
        if (following_source_ + 1 != sources_.size()) stop = std::min(stop, sources_.back().chunk->job.begin);
        const std::size_t s0 = c->s;
        const u32 j0 = c->j;
        take_steps(*c, blk, stop, steps);
        runs.add(*c, s0, j0, pos, following_src()->chunk);
        const bool moved = c->p != pos;
        pos = c->p;
        return moved;
    }

    /// Older chunks go once the resolver follows a newer one, or is past all their tracks.
    void drop_old(const u8* pos) {
        while (sources_.size() > 1) {
            Source& front = sources_.front();
            bool needed = following_ != nullptr && following_source_ == 0;
            for (const SeqCursor& c : front.cursors) needed = needed || c.track->end > pos;
            if (needed && !(following_ != nullptr && following_source_ + 1 == sources_.size())) break;
            if (following_ != nullptr && following_source_ == 0) following_ = nullptr;
            sources_.pop_front();  // (the other sources' cursors stay where they are: a deque)
            if (following_ != nullptr) --following_source_;
        }
    }

private:
    struct Source {
        std::shared_ptr<const ChunkTracks> chunk;
        std::vector<SeqCursor> cursors;
    };

    Source* following_src() { return &sources_[following_source_]; }
    void follow(std::size_t source, std::size_t index) {
        following_source_ = source;
        following_ = &sources_[source].cursors[index];
    }

    // The steps of @p c that the run may take: each starts before @p stop with fewer
    // matches in the block than its limit (BlockLogic::run_goes_on() at level 1).  Literal
    // runs go in one go, and whole strides of sequences where the block goes on after
    // their last step (positions and matches only grow, so it goes on after each before).
    static void take_steps(SeqCursor& c, Logic& blk, const u8* stop, std::uint64_t& steps) {
        const Track& t = *c.track;
        const std::size_t strides = t.seq_marks.size();
        const SeqStep* const seqs = c.seqs;
        std::size_t s = c.s;
        u32 j = c.j;
        const u8* p = c.p;
        u32 matches = blk.num_matches;
        for (;;) {
            if (j == 0 && s % Track::kSeqStride == 0) {
                for (std::size_t k = s / Track::kSeqStride; k < strides; ++k) {
                    const u8* const q = t.begin + t.seq_marks[k];
                    if (!(q < stop && matches + Track::kSeqStride < blk.seq_limit)) break;
                    steps += Track::kSeqStride;  // (its matches: its literals are not counted)
                    p = q;
                    matches += Track::kSeqStride;
                    s += Track::kSeqStride;
                }
            }
            if (p >= stop || matches >= blk.seq_limit) break;
            const SeqStep& seq = seqs[s];
            const u32 left = seq.litrun - j;
            if (left != 0) {
                const u32 take = u32(std::min<std::size_t>(left, std::size_t(stop - p)));
                j += take;
                p += take;
                steps += take;
                continue;
            }
            if (seq.length == 0) break;  // the track's end
            p += seq.length;
            ++matches;
            ++s;
            j = 0;
            ++steps;
        }
        blk.num_matches = matches;
        c.s = s;
        c.j = j;
        c.p = p;
    }

    std::deque<Source> sources_;
    SeqCursor* following_ = nullptr;
    std::size_t following_source_ = 0;  ///< following_'s source in sources_
};

}  // namespace flowdeflate::parallel
