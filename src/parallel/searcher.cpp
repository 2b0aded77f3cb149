// searcher.cpp - see searcher.hpp.
#include "parallel/searcher.hpp"

#include "core/clock.hpp"
#include "core/level_parsers.hpp"
#include "parallel/pool.hpp"
#include "parallel/recorders.hpp"

namespace flowdeflate::parallel {

class ChunkSearcher::Base {
public:
    virtual ~Base() = default;
    virtual void search(const ChunkJob& job, const TrackPlan& plan, ChunkTracks& out) = 0;
};

namespace {

Track& new_track(ChunkTracks& out, const ChunkJob& job) {
    Track& t = out.tracks.emplace_back();
    t.begin = job.begin;
    return t;
}

template <class Parser>
class SearcherFor;

// Level 1: the steps as sequences, with stride marks for the resolver
// (sequence_follower.hpp).
template <>
class SearcherFor<FastestParser> final : public ChunkSearcher::Base {
public:
    explicit SearcherFor(const LevelParams& params) : parser_(params) {}

    void search(const ChunkJob& job, const TrackPlan&, ChunkTracks& out) override {
        Track& t = new_track(out, job);
        t.seqs = SequenceBufferPool::instance().take();
        t.seq_marks = Pool<std::vector<u32>>::instance().take();
        SequenceRecorder rec(t, job.stop);
        u32 hash;
        parser_.prime(job.in_begin, job.begin, hash);
        u32 max_len = kMaxMatchLen, nice_len = std::min(parser_.nice_len(), kMaxMatchLen);
        const u8* p = job.begin;
        while (p < job.stop) p = parser_.step(p, job.data_end, max_len, nice_len, hash, rec);
        rec.finish();
        t.end = p;
    }

private:
    FastestParser parser_;
};

// Levels 2-9: the parser's own search loop with a recorder that writes items, strides
// and, as the plan asks, step masks and branches.
template <LazyMode kMode>
class SearcherFor<LazyParser<kMode>> final : public ChunkSearcher::Base {
public:
    explicit SearcherFor(const LevelParams& params) : params_(params), parser_(params) {}

    void search(const ChunkJob& job, const TrackPlan& plan, ChunkTracks& out) override {
        out.step_masks = plan.step_masks;
        out.branches = plan.step_masks && !plan.branch_min_lens.empty();
        if (out.branches)
            search_with<true, true>(job, plan, out);
        else if (plan.step_masks)
            search_with<true, false>(job, plan, out);
        else
            search_with<false, false>(job, plan, out);
    }

private:
    template <bool kMasks, bool kBranch>
    void search_with(const ChunkJob& job, const TrackPlan& plan, ChunkTracks& out) {
        Track& t = new_track(out, job);
        LazyTrackRecorder<kMasks, kMode, kBranch> rec(t, job.stop);
        if constexpr (kBranch) {
            t.branches = Pool<std::vector<Track::Branch>>::instance().take();
            t.branch_items = ItemBufferPool::instance().take();
            rec.branches.setup(t, plan, params_, job.in_begin, job.data_end);
        }
        parser_.search(job.in_begin, job.begin, job.data_end, rec);
        rec.finish();
        t.end = rec.end;
    }

    LevelParams params_;
    LazyParser<kMode> parser_;
};

}  // namespace

ChunkSearcher::ChunkSearcher(int level) {
    const LevelParams params = LevelParams::for_level(level);
    impl_ = with_parallel_parser_type(params.parser, [&]<class Parser>(std::type_identity<Parser>) {
        return std::unique_ptr<Base>(std::make_unique<SearcherFor<Parser>>(params));
    });
}

ChunkSearcher::~ChunkSearcher() = default;

std::unique_ptr<ChunkTracks> ChunkSearcher::search(const ChunkJob& job, const TrackPlan& plan) {
    auto out = std::make_unique<ChunkTracks>();
    out->job = job;
    const std::uint64_t t0 = thread_cpu_ns();
    if (job.begin < job.stop) impl_->search(job, plan, *out);
    out->search_ns = thread_cpu_ns() - t0;
    return out;
}

}  // namespace flowdeflate::parallel
