// resolver.cpp - see resolver.hpp.  ResolverFor<Parser> composes the follower, the
// repairer, the block's runs and the planner around libdeflate's block logic; level 1's
// has its own follower and runs (sequence_follower.hpp).
#include "parallel/resolver.hpp"

#include <cassert>

#include "core/clock.hpp"
#include "core/input_stream.hpp"
#include "core/level_parsers.hpp"
#include "parallel/block_logic.hpp"
#include "parallel/block_runs.hpp"
#include "parallel/sequence_follower.hpp"
#include "parallel/follower.hpp"
#include "parallel/planner.hpp"
#include "parallel/repairer.hpp"

namespace flowdeflate::parallel {

class Resolver::Base {
public:
    virtual ~Base() = default;
    virtual void resolve(std::shared_ptr<const ChunkTracks> tracks, const Emit& emit) = 0;
    [[nodiscard]] virtual TrackPlan plan() const = 0;
    virtual void fix_resolver_load(double load) = 0;
    ResolverStats stats{};
};

namespace {

// What both resolvers share: the chunk's bookkeeping, the block's extent and numbering,
// tiny inputs, the planner and the repairer.  Derived: the loop over a chunk's steps.
template <class Parser>
class ResolverBase : public Resolver::Base {
protected:
    using Logic = BlockLogic<Parser>;

    ResolverBase(const LevelParams& params, Tracks mode, int workers)
        : params_(params), planner_(mode, workers, !Logic::kFastest), repairer_(params) {}

public:
    [[nodiscard]] TrackPlan plan() const override { return planner_.plan(); }
    void fix_resolver_load(double load) override { planner_.fix_resolver_load(load); }

protected:
    // A chunk's tracks arrive: false when there is nothing to follow (a tiny input, stored
    // as it is, as libdeflate does).
    bool chunk_arrives(const ChunkJob& job, const Resolver::Emit& emit) {
        chunk_t0_ = thread_cpu_ns();
        emit_ns_ = 0;
        if (in_begin_ == nullptr) {
            in_begin_ = job.in_begin;
            pos_ = job.in_begin;
        }
        data_end_ = job.data_end;
        eof_ = job.eof;
        stats.chunks++;
        if (job.index == 0 && eof_ && std::size_t(data_end_ - in_begin_) <= params_.max_passthrough_size) {
            auto block = std::make_unique<ResolvedBlock>();
            block->data = {in_begin_, std::size_t(data_end_ - in_begin_)};
            block->is_final = true;
            block->stored_only = true;
            pos_ = data_end_;
            stats.blocks++;
            emit(std::move(block));
            return false;
        }
        planner_.chunk_begins();
        return true;
    }
    /// Where resolving this chunk ends: the first step at or past its end.
    [[nodiscard]] const u8* chunk_limit(const ChunkJob& job) const {
        return eof_ && job.end == data_end_ ? data_end_ : job.end;
    }
    void chunk_done(const ChunkTracks& tracks) {
        const std::uint64_t own_ns = thread_cpu_ns() - chunk_t0_ - emit_ns_;
        stats.resolve_ns += own_ns;
        planner_.chunk_resolved(tracks, own_ns);
    }

    void block_begins() {
        // The reader hands out a chunk only with a block's look-ahead of input behind it
        // (or with the end known), so every decision below is the whole-input one.
        assert(eof_ || std::size_t(data_end_ - pos_) >= kStreamLookahead);
        logic_.begin(pos_, data_end_, params_.max_search_depth);
        block_begin_ = pos_;
        in_block_ = true;
    }
    /// The block that ends at pos_, for its runs to be added.
    std::unique_ptr<ResolvedBlock> block_ends() {
        auto block = std::make_unique<ResolvedBlock>();
        block->index = next_block_index_++;
        block->data = {block_begin_, std::size_t(pos_ - block_begin_)};
        block->is_final = eof_ && pos_ == data_end_;
        in_block_ = false;
        stats.blocks++;
        return block;
    }
    void emit_block(std::unique_ptr<ResolvedBlock> block, const Resolver::Emit& emit) {
        const std::uint64_t t0 = thread_cpu_ns();
        emit(std::move(block));
        emit_ns_ += thread_cpu_ns() - t0;  // the resolver's own time excludes what emit does
    }

    // A repair's steps go to the block logic and to @p sink.
    template <class Sink>
    struct Apply {
        Logic& blk;
        Sink& sink;
        [[gnu::always_inline]] void literal(const u8* p) {
            blk.literal(*p);
            sink.literal(p);
        }
        [[gnu::always_inline]] void match(const u8* p, u32 len, u32 offset) {
            blk.match(len);
            sink.match(p, len, offset);
        }
    };

    const LevelParams params_;
    TrackPlanner planner_;
    Repairer<Parser> repairer_;

    const u8* in_begin_ = nullptr;
    const u8* pos_ = nullptr;  ///< the true parse stands here, at a step start
    const u8* data_end_ = nullptr;
    bool eof_ = false;

    bool in_block_ = false;
    const u8* block_begin_ = nullptr;
    Logic logic_;
    std::size_t next_block_index_ = 0;
    std::uint64_t chunk_t0_ = 0;
    std::uint64_t emit_ns_ = 0;
};

// Levels 2-9: tracks of items, followed for the true min_len (follower.hpp), repaired
// where none fits.
template <class Parser>
class ResolverFor final : public ResolverBase<Parser> {
    using Base = ResolverBase<Parser>;
    using Logic = typename Base::Logic;
    /// The level recalculates min_len from the block's literal counts.
    static constexpr bool kCountLiterals = Logic::kRecalc;
    using Base::logic_, Base::pos_, Base::planner_, Base::repairer_, Base::params_, Base::in_begin_, Base::stats;

public:
    ResolverFor(const LevelParams& params, Tracks mode, int workers) : Base(params, mode, workers) {}

    void resolve(std::shared_ptr<const ChunkTracks> tracks, const Resolver::Emit& emit) override {
        if (!this->chunk_arrives(tracks->job, emit)) return;
        if (tracks->branches) stats.branched_chunks++;
        if (tracks->step_masks) stats.masked_chunks++;
        follower_.add(tracks);
        const u8* const limit = this->chunk_limit(tracks->job);
        while (pos_ < limit) {
            if (!this->in_block_) begin_block();
            if (follower_.follow_run(pos_, logic_, logic_.run_stop(limit), runs_, stats.steps_followed)) {
                if (!logic_.continues(pos_)) end_block(emit);
                continue;
            }
            const u32 min_len_before = logic_.min_len;
            if constexpr (kCountLiterals)
                if (pos_ >= logic_.next_recalc) runs_.count_literals_to(pos_);
            logic_.before_step(pos_, runs_.litlen(), params_.max_search_depth);
            if (logic_.min_len != min_len_before) planner_.min_len_chosen(logic_.min_len);
            take_step();
            if (!logic_.continues(pos_)) end_block(emit);
        }
        follower_.drop_old(pos_);
        this->chunk_done(*tracks);
    }

private:
    // A repair's items go to the block's repair items.
    struct RepairRecorder {
        std::vector<u32>& items;
        void literal(const u8*) { items.push_back(0); }
        void match(const u8*, u32 len, u32 offset) { items.push_back(match_item(len, offset)); }
    };

    void begin_block() {
        this->block_begins();
        planner_.min_len_chosen(logic_.min_len);
        runs_.begin(pos_, kCountLiterals);
    }

    void end_block(const Resolver::Emit& emit) {
        auto block = this->block_ends();
        runs_.finish(*block, kCountLiterals);
        this->emit_block(std::move(block), emit);
    }

    // One step at pos_: a track's or a branch's where one fits, else a repair.
    void take_step() {
        const auto found = follower_.find(pos_, logic_.min_len);
        if (found.cursor == nullptr) {
            repair_step(found.some_track_here);
            return;
        }
        if (found.synced) {
            stats.syncs++;
            repairer_.stop();
        }
        if (found.branch) {
            stats.branches++;
            planner_.branch_taken();
        }
        follower_.take(*found.cursor, pos_, logic_, runs_);
        stats.steps_followed++;
    }

    void repair_step(bool some_track_here) {
        if (!repairer_.active()) {  // a repair begins
            stats.repairs++;
            repair_for_min_len_ = some_track_here;
            if (some_track_here) {
                stats.repairs_min_len++;
                planner_.min_len_repair();
            } else {
                stats.repairs_phase++;
            }
        }
        const u8* const at = pos_;
        std::vector<u32>& items = runs_.repair_items();
        const std::size_t first = items.size();
        RepairRecorder rec{items};
        typename Base::template Apply<RepairRecorder> out{logic_, rec};
        pos_ = repairer_.step(in_begin_, pos_, logic_, out);
        runs_.add_repaired(first, at);
        stats.repair_bytes += std::uint64_t(pos_ - at);
        if (repair_for_min_len_) planner_.min_len_repair_bytes(std::uint64_t(pos_ - at));
    }

    TrackFollower<Parser> follower_;
    bool repair_for_min_len_ = false;  ///< the current repair's cause
    BlockRuns runs_;  ///< the block so far, as it goes to Code: runs of items
};

// Level 1: the tracks are sequences (sequence_follower.hpp), the block logic counts
// matches and looks at positions, and there is no min_len, so no masks or branches.
template <>
class ResolverFor<FastestParser> final : public ResolverBase<FastestParser> {
    using Base = ResolverBase<FastestParser>;

public:
    ResolverFor(const LevelParams& params, Tracks mode, int workers) : Base(params, mode, workers) {}

    void resolve(std::shared_ptr<const ChunkTracks> tracks, const Resolver::Emit& emit) override {
        if (!chunk_arrives(tracks->job, emit)) return;
        follower_.add(tracks);
        const u8* const limit = chunk_limit(tracks->job);
        while (pos_ < limit) {
            if (!in_block_) begin_block();
            if (follower_.follow_run(pos_, logic_, logic_.run_stop(limit), runs_, stats.steps_followed, stats.syncs)) {
                if (!logic_.continues(pos_)) end_block(emit);
                continue;
            }
            const auto found = follower_.find(pos_);
            if (found.cursor != nullptr) {
                if (found.synced) {
                    stats.syncs++;
                    end_repair();
                    repairer_.stop();
                }
                // One step, whatever the run's stop: a newer chunk's track may not have
                // met this one yet (sequence_follower.hpp).
                follower_.take_step(*found.cursor, pos_, logic_, runs_);
                stats.steps_followed++;
            } else {
                repair_step();
            }
            if (!logic_.continues(pos_)) end_block(emit);
        }
        follower_.drop_old(pos_);
        chunk_done(*tracks);
    }

private:
    // A repair's steps go to the block's repair sequences.
    struct RepairRecorder {
        SeqBlockRuns& runs;
        void literal(const u8*) { runs.repair_literal(); }
        void match(const u8*, u32 len, u32 offset) { runs.repair_match(len, offset); }
    };

    void begin_block() {
        block_begins();
        runs_.begin();
    }

    void end_block(const Resolver::Emit& emit) {
        end_repair();
        auto block = block_ends();
        runs_.finish(*block);
        emit_block(std::move(block), emit);
    }

    // The steps repaired since repair_at_ become a run of the block.
    void end_repair() {
        if (repair_at_ == nullptr) return;
        runs_.close_repair(repair_at_);
        repair_at_ = nullptr;
    }

    void repair_step() {
        if (repair_at_ == nullptr) {
            if (!repairer_.active()) {  // a repair begins (not merely a new block's run of it)
                stats.repairs++;
                stats.repairs_phase++;
            }
            repair_at_ = pos_;
        }
        const u8* const at = pos_;
        RepairRecorder rec{runs_};
        Apply<RepairRecorder> out{logic_, rec};
        pos_ = repairer_.step(in_begin_, pos_, logic_, out);
        stats.repair_bytes += std::uint64_t(pos_ - at);
    }

    SeqFollower follower_;
    SeqBlockRuns runs_;  ///< the block so far, as it goes to Code: runs of sequences
    const u8* repair_at_ = nullptr;  ///< where the block's open repair run began, if one is open
};

}  // namespace

Resolver::Resolver(int level, Tracks mode, int workers) {
    const LevelParams params = LevelParams::for_level(level);
    impl_ = with_parallel_parser_type(params.parser, [&]<class Parser>(std::type_identity<Parser>) {
        return std::unique_ptr<Base>(std::make_unique<ResolverFor<Parser>>(params, mode, workers));
    });
}

Resolver::~Resolver() = default;

void Resolver::resolve(std::shared_ptr<const ChunkTracks> tracks, const Emit& emit) {
    impl_->resolve(std::move(tracks), emit);
}
TrackPlan Resolver::plan() const { return impl_->plan(); }
void Resolver::fix_resolver_load(double load) { impl_->fix_resolver_load(load); }
const ResolverStats& Resolver::stats() const { return impl_->stats; }

}  // namespace flowdeflate::parallel
