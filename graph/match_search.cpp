// match_search.cpp - see match_search.hpp.
#include "graph/match_search.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <cassert>
#include <optional>

#include "core/clock.hpp"
#include "core/min_cost_path.hpp"

namespace flowdeflate::graph {

ParallelMatchSearch::ParallelMatchSearch(const core::LevelParams& params, core::InputStream& in,
                                         tbb::task_arena& arena, int threads, const GraphOptions& options)
    : params_(params),
      in_(in),
      arena_(arena),
      threads_(threads),
      chunk_size_(options.chunk()),
      probe_(options.probe),
      slots_(std::size_t(options.ahead > 0 ? options.ahead : threads + 4)) {}

ParallelMatchSearch::~ParallelMatchSearch() noexcept {
    stop_ = true;
    arena_.execute([this] { group_.wait(); });
}

bool ParallelMatchSearch::claim(Slot& slot) {
    int expected = kPending;
    return slot.state.compare_exchange_strong(expected, kRunning, std::memory_order_acquire);
}

void ParallelMatchSearch::launch(std::size_t k) {
    Slot& slot = slots_[k % slots_.size()];
    slot.index = k;
    slot.error = nullptr;
    slot.state.store(kPending, std::memory_order_release);
    if (probe_) ++probe_->chunks_in;
    // A task of an earlier chunk of this slot that has not run yet takes this one; the
    // second of the two finds nothing pending.
    arena_.execute([&] {
        group_.run([this, &slot] {
            if (!stop_.load(std::memory_order_relaxed) && claim(slot)) search(slot);
        });
    });
}

unsigned ParallelMatchSearch::helpers() const {
    int busy = 0;
    for (const Slot& slot : slots_) busy += slot.state.load(std::memory_order_relaxed) == kRunning;
    return unsigned(std::max(0, threads_ - 1 - busy));
}

void ParallelMatchSearch::offer(core::u32 n, Job& job, Job& main) {
    // Isolated: waiting, this thread runs only these jobs (those no other thread took,
    // which return at once), never a chunk's search.  Spawned front first: a thread that
    // steals takes the oldest.
    tbb::this_task_arena::isolate([&] {
        tbb::task_group parts;
        for (core::u32 k = 0; k < n; ++k) parts.run([&job, k] { job.run(k); });
        main.run(0);
        parts.wait();
    });
}

void ParallelMatchSearch::recycle(Slot& slot) {
    for (Page& page : slot.pages)
        if (page.records) pages_.give(std::move(page.records));
    slot.pages.clear();
}

OptimiserStats ParallelMatchSearch::stats(std::uint64_t parser_thread_ns) const {
    OptimiserStats s = stats_;
    s.ran = true;
    s.threads = threads_;
    s.chunk_size = chunk_size_;
    s.ahead = int(slots_.size());
    s.search_ns = search_ns_.load();
    s.optimiser_ns = parser_thread_ns - std::min(parser_thread_ns, parser_search_ns_.load());
    s.min_cost_path = core::path_isa_name(core::min_cost_path_isa());
    s.path_min_part = core::PathSplitter::kMinPart;
    s.path_passes = counters.passes.load();
    s.path_positions = counters.positions.load();
    s.path_split = counters.split.load();
    s.path_parts = counters.parts.load();
    s.path_taken = counters.taken.load();
    s.path_disagreed = counters.disagreed.load();
    s.path_ns = counters.path_ns.load();
    s.path_guess_ns = counters.guess_ns.load();
    return s;
}

void ParallelMatchSearch::search(Slot& slot) {
    const std::uint64_t t0 = core::thread_cpu_ns();
    try {
        const core::u8* const in_begin = in_.begin();
        const core::u8* const begin = in_begin + slot.index * chunk_size_;
        const core::u8* const nominal_end = begin + chunk_size_;
        // The input to the chunk's end, its last matches and the tail it may take.
        const core::u8* const present = in_.ensure(nominal_end + kTail);
        const core::u8* const end = present < nominal_end + kTail ? present : nominal_end;
        if (begin < end) {
            auto mf = finders_.take([] { return std::make_unique<core::BtMatchFinder>(); });
            core::MatchRecorder searcher(params_, *mf, in_begin, begin, present);
            while (searcher.pos() < end) {
                // The slack past a page's entries: the parser's block copies (match_feed.hpp).
                Buffer records = pages_.take([] { return Buffer(kPageEntries + core::MatchFeed::kReadSlack); });
                searcher.search(end, records.get(), kPageEntries);
                slot.pages.push_back({std::move(records), searcher.pos()});
            }
            finders_.give(std::move(mf));
        }
    } catch (...) {
        slot.error = std::current_exception();
    }
    search_ns_ += core::thread_cpu_ns() - t0;
    if (probe_) ++probe_->chunks_searched;
    slot.state.store(kDone, std::memory_order_release);
    slot.state.notify_all();
}

bool ParallelMatchSearch::search_here(Slot& slot) {
    if (!claim(slot)) return false;
    ++stats_.searched_by_optimiser;
    const std::uint64_t t0 = core::thread_cpu_ns();
    search(slot);
    parser_search_ns_ += core::thread_cpu_ns() - t0;
    return true;
}

core::MatchRun ParallelMatchSearch::next(const core::u8* pos) {
    // The next page of the chunk the parser reads, if it has one.
    if (slot_ != nullptr && page_ + 1 < slot_->pages.size()) {
        pages_.give(std::move(slot_->pages[page_].records));
        ++page_;
        assert(pos == slot_->pages[page_ - 1].end);
        return {slot_->pages[page_].records.get(), slot_->pages[page_].end};
    }
    const std::size_t k = std::size_t(pos - in_.begin()) / chunk_size_;
    const std::size_t ahead = slots_.size();
    if (slot_ == nullptr) {
        for (std::size_t i = 0; i < ahead; ++i) launch(k + i);
    } else {
        recycle(*slot_);
        launch(k - 1 + ahead);  // chunk k - 1 is done with: its slot searches further on
    }
    Slot& slot = slots_[k % ahead];
    assert(slot.index == k);
    ++stats_.chunks;
    if (!search_here(slot) && slot.state.load(std::memory_order_acquire) != kDone) {
        // A task is searching it: search the next chunks no task has started meanwhile,
        // rather than wait idle (levels 10-12 on binaries: the search is most of the work).
        for (std::size_t j = k + 1; j < k + ahead && slot.state.load(std::memory_order_acquire) != kDone; ++j) {
            Slot& later = slots_[j % ahead];
            if (later.index == j) search_here(later);  // index: written by launch(), on this thread
        }
        const std::uint64_t t0 = core::now_ns();
        ++stats_.waits;
        for (int s = slot.state.load(std::memory_order_acquire); s != kDone;
             s = slot.state.load(std::memory_order_acquire))
            slot.state.wait(s, std::memory_order_acquire);
        stats_.wait_ns += core::now_ns() - t0;
    }
    if (slot.error) std::rethrow_exception(slot.error);
    assert(pos == in_.begin() + k * chunk_size_ && !slot.pages.empty());
    slot_ = &slot;
    page_ = 0;
    return {slot.pages[0].records.get(), slot.pages[0].end};
}

std::uint64_t compress_with_search(core::DeflateCompressor& compressor, core::InputStream& in, core::SegmentSink& out,
                                   const GraphOptions& options, tbb::task_arena& arena, int threads,
                                   const std::function<void()>& on_failure, OptimiserStats* stats) {
    // The search outlives the try: its tasks may wait in the input until on_failure
    // wakes them.
    std::optional<ParallelMatchSearch> search;
    try {
        if (searches_ahead(options) && threads > 1) search.emplace(compressor.params(), in, arena, threads, options);
        const std::uint64_t t0 = core::thread_cpu_ns(), w0 = core::now_ns();
        const std::uint64_t in_bytes =
            compressor.compress_stream(in, out, options.format, options.segment_size, search ? &*search : nullptr,
                                       options.index, options.index_span);
        if (search && stats) {
            *stats = search->stats(core::thread_cpu_ns() - t0);
            stats->wall_ns = core::now_ns() - w0;
        }
        return in_bytes;
    } catch (...) {
        if (on_failure) on_failure();
        throw;
    }
}

}  // namespace flowdeflate::graph
