// resolver.cpp - see resolver.hpp.  ResolverFor<Parser> composes the follower, the
// repairer, the block's runs and the planner around libdeflate's block logic.
#include "parallel/resolver.hpp"

#include <cassert>

#include "core/clock.hpp"
#include "core/input_stream.hpp"
#include "core/level_parsers.hpp"
#include "parallel/block_logic.hpp"
#include "parallel/block_runs.hpp"
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

template <class Parser>
class ResolverFor final : public Resolver::Base {
    using Logic = BlockLogic<Parser>;
    static constexpr bool kFastest = Logic::kFastest;
    /// The level recalculates min_len from the block's literal counts.
    static constexpr bool kCountLiterals = Logic::kRecalc;

public:
    ResolverFor(const LevelParams& params, TrackMode mode, int workers)
        : params_(params), planner_(mode, workers, !kFastest), repairer_(params) {}

    void resolve(std::shared_ptr<const ChunkTracks> tracks, const Resolver::Emit& emit) override {
        const std::uint64_t t0 = thread_cpu_ns();
        emit_ns_ = 0;
        const ChunkJob& job = tracks->job;
        if (in_begin_ == nullptr) {
            in_begin_ = job.in_begin;
            pos_ = job.in_begin;
        }
        data_end_ = job.data_end;
        eof_ = job.eof;
        stats.chunks++;
        if (job.index == 0 && eof_ && std::size_t(data_end_ - in_begin_) <= params_.max_passthrough_size) {
            emit_stored_input(emit);
            return;
        }
        if (tracks->branches) stats.branched_chunks++;
        if (tracks->step_masks) stats.masked_chunks++;
        follower_.add(tracks);

        const u8* const limit = eof_ && job.end == data_end_ ? data_end_ : job.end;
        planner_.chunk_begins();
        while (pos_ < limit) {
            if (!in_block_) begin_block();
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
        const std::uint64_t own_ns = thread_cpu_ns() - t0 - emit_ns_;
        stats.resolve_ns += own_ns;
        planner_.chunk_resolved(*tracks, own_ns);
    }

    [[nodiscard]] TrackPlan plan() const override { return planner_.plan(); }
    void fix_resolver_load(double load) override { planner_.fix_resolver_load(load); }

private:
    // A repair's items go to the block logic and to the block's repair items.
    struct RepairRecorder {
        std::vector<u32>& items;
        void literal(const u8*) { items.push_back(0); }
        void match(const u8*, u32 len, u32 offset) { items.push_back(match_item(len, offset)); }
    };
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

    // Tiny input: libdeflate stores it as it is.
    void emit_stored_input(const Resolver::Emit& emit) {
        auto block = std::make_unique<ResolvedBlock>();
        block->data = {in_begin_, std::size_t(data_end_ - in_begin_)};
        block->is_final = true;
        block->stored_only = true;
        pos_ = data_end_;
        stats.blocks++;
        emit(std::move(block));
    }

    void begin_block() {
        // The reader hands out a chunk only with a block's look-ahead of input behind it
        // (or with the end known), so every decision below is the whole-input one.
        assert(eof_ || std::size_t(data_end_ - pos_) >= kStreamLookahead);
        logic_.begin(pos_, data_end_, params_.max_search_depth);
        if constexpr (!kFastest) planner_.min_len_chosen(logic_.min_len);
        runs_.begin(pos_, kCountLiterals);
        block_begin_ = pos_;
        in_block_ = true;
    }

    void end_block(const Resolver::Emit& emit) {
        auto block = std::make_unique<ResolvedBlock>();
        block->index = next_block_index_++;
        block->data = {block_begin_, std::size_t(pos_ - block_begin_)};
        runs_.finish(*block, kCountLiterals);
        block->is_final = eof_ && pos_ == data_end_;
        in_block_ = false;
        stats.blocks++;
        const std::uint64_t t0 = thread_cpu_ns();
        emit(std::move(block));
        emit_ns_ += thread_cpu_ns() - t0;  // the resolver's own time excludes what emit does
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
        Apply<RepairRecorder> out{logic_, rec};
        pos_ = repairer_.step(in_begin_, pos_, logic_, out);
        runs_.add_repaired(first, at);
        stats.repair_bytes += std::uint64_t(pos_ - at);
        if (repair_for_min_len_) planner_.min_len_repair_bytes(std::uint64_t(pos_ - at));
    }

    const LevelParams params_;
    TrackPlanner planner_;
    TrackFollower<Parser> follower_;
    Repairer<Parser> repairer_;
    bool repair_for_min_len_ = false;  ///< the current repair's cause

    const u8* in_begin_ = nullptr;
    const u8* pos_ = nullptr;  ///< the true parse stands here, at a step start
    const u8* data_end_ = nullptr;
    bool eof_ = false;

    bool in_block_ = false;
    const u8* block_begin_ = nullptr;
    Logic logic_;
    BlockRuns runs_;  ///< the block so far, as it goes to Code: runs of items
    std::size_t next_block_index_ = 0;
    std::uint64_t emit_ns_ = 0;
};

}  // namespace

Resolver::Resolver(int level, TrackMode mode, int workers) {
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
